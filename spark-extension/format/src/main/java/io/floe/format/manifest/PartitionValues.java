package io.floe.format.manifest;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;

/**
 * Partition values between Floe's Java representation (Integer days, Long micros, BigDecimal, UUID,
 * ByteBuffer, String) and their Avro form in the {@code r102} record, plus the Avro type of each
 * partition field (spec §5: {@code day} as int/date, decimal as fixed, uuid as fixed[16]).
 */
final class PartitionValues {
  private PartitionValues() {}

  /** The partition value type of each spec field; a {@code day} result is always a date. */
  static List<Type> types(PartitionSpec spec) {
    List<Type> out = new ArrayList<>();
    List<Types.NestedField> fields = spec.partitionType().fields();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = spec.fields().get(i);
      out.add("day".equals(field.transform().toString()) ? Types.DateType.get() : fields.get(i).type());
    }
    return out;
  }

  /** The Avro type of a primitive partition type; named (fixed) types are shared through {@code named}. */
  static Schema avroType(Type type, Map<String, Schema> named) {
    switch (type.typeId()) {
      case BOOLEAN:
        return Schema.create(Schema.Type.BOOLEAN);
      case INTEGER:
        return Schema.create(Schema.Type.INT);
      case LONG:
        return Schema.create(Schema.Type.LONG);
      case FLOAT:
        return Schema.create(Schema.Type.FLOAT);
      case DOUBLE:
        return Schema.create(Schema.Type.DOUBLE);
      case DATE:
        return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case TIME:
        return LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case TIMESTAMP: {
        Schema ts = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        ts.addProp("adjust-to-utc", ((Types.TimestampType) type).shouldAdjustToUTC());
        return ts;
      }
      case STRING:
        return Schema.create(Schema.Type.STRING);
      case BINARY:
        return Schema.create(Schema.Type.BYTES);
      case UUID:
        return named.computeIfAbsent("uuid_fixed",
            n -> LogicalTypes.uuid().addToSchema(Schema.createFixed(n, null, null, 16)));
      case FIXED: {
        int length = ((Types.FixedType) type).length();
        return named.computeIfAbsent("fixed_" + length, n -> Schema.createFixed(n, null, null, length));
      }
      case DECIMAL: {
        Types.DecimalType dec = (Types.DecimalType) type;
        return named.computeIfAbsent("decimal_" + dec.precision() + "_" + dec.scale(),
            n -> LogicalTypes.decimal(dec.precision(), dec.scale())
                .addToSchema(Schema.createFixed(n, null, null, decimalBytes(dec.precision()))));
      }
      default:
        throw new IllegalArgumentException("Unsupported partition value type: " + type);
    }
  }

  /** Floe type for an Avro partition field, used when the table schema no longer has the source column. */
  static Type floeType(Schema avro) {
    Schema s = AvroRecords.nonNull(avro);
    String logical = s.getLogicalType() == null ? null : s.getLogicalType().getName();
    switch (s.getType()) {
      case BOOLEAN:
        return Types.BooleanType.get();
      case INT:
        return "date".equals(logical) ? Types.DateType.get() : Types.IntegerType.get();
      case LONG:
        if ("timestamp-micros".equals(logical)) {
          Object utc = s.getObjectProp("adjust-to-utc");
          return Boolean.TRUE.equals(utc) ? Types.TimestampType.withZone() : Types.TimestampType.withoutZone();
        }
        return "time-micros".equals(logical) ? Types.TimeType.get() : Types.LongType.get();
      case FLOAT:
        return Types.FloatType.get();
      case DOUBLE:
        return Types.DoubleType.get();
      case STRING:
        return "uuid".equals(logical) ? Types.UUIDType.get() : Types.StringType.get();
      case BYTES:
      case FIXED:
        if (s.getLogicalType() instanceof LogicalTypes.Decimal) {
          LogicalTypes.Decimal d = (LogicalTypes.Decimal) s.getLogicalType();
          return Types.DecimalType.of(d.getPrecision(), d.getScale());
        }
        if ("uuid".equals(logical)) {
          return Types.UUIDType.get();
        }
        return s.getType() == Schema.Type.FIXED ? Types.FixedType.ofLength(s.getFixedSize()) : Types.BinaryType.get();
      default:
        throw new IllegalArgumentException("Unsupported Avro partition type: " + s);
    }
  }

  /** The smallest number of bytes that holds any unscaled value of the given precision. */
  static int decimalBytes(int precision) {
    BigInteger max = BigInteger.TEN.pow(precision);
    int bytes = 1;
    while (BigInteger.ONE.shiftLeft(8 * bytes - 1).compareTo(max) < 0) {
      bytes += 1;
    }
    return bytes;
  }

  /** Whether {@code value} has the Java class Floe uses for {@code type} (null is valid). */
  static boolean isValid(Type type, Object value) {
    if (value == null) {
      return true;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return value instanceof Boolean;
      case INTEGER:
      case DATE:
        return value instanceof Integer;
      case LONG:
      case TIME:
      case TIMESTAMP:
        return value instanceof Long;
      case FLOAT:
        return value instanceof Float;
      case DOUBLE:
        return value instanceof Double;
      case STRING:
        return value instanceof CharSequence;
      case UUID:
        return value instanceof UUID;
      case FIXED:
      case BINARY:
        return value instanceof ByteBuffer;
      case DECIMAL:
        return value instanceof BigDecimal;
      default:
        return false;
    }
  }

  /** The Avro datum for a partition value of {@code type}, written against {@code avro}. */
  static Object toAvro(Type type, Schema avro, Object value) {
    if (value == null) {
      return null;
    }
    Schema s = AvroRecords.nonNull(avro);
    switch (type.typeId()) {
      case BOOLEAN:
      case FLOAT:
      case DOUBLE:
        return value;
      case INTEGER:
      case DATE:
        return ((Number) value).intValue();
      case LONG:
      case TIME:
      case TIMESTAMP:
        return ((Number) value).longValue();
      case STRING:
        return value.toString();
      case BINARY:
        return ((ByteBuffer) value).duplicate();
      case FIXED:
        return new GenericData.Fixed(s, AvroRecords.bytes((ByteBuffer) value));
      case UUID: {
        UUID uuid = (UUID) value;
        ByteBuffer buf = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
            .putLong(uuid.getLeastSignificantBits());
        return new GenericData.Fixed(s, buf.array());
      }
      case DECIMAL:
        return new GenericData.Fixed(s, decimalToFixed((Types.DecimalType) type, (BigDecimal) value, s.getFixedSize()));
      default:
        throw new IllegalArgumentException("Unsupported partition value type: " + type);
    }
  }

  private static byte[] decimalToFixed(Types.DecimalType type, BigDecimal value, int size) {
    BigDecimal scaled;
    try {
      scaled = value.setScale(type.scale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("Cannot write decimal partition value " + value + " as " + type, e);
    }
    byte[] unscaled = scaled.unscaledValue().toByteArray();
    if (unscaled.length > size || scaled.precision() > type.precision()) {
      throw new IllegalArgumentException("Cannot write decimal partition value " + value + " as " + type
          + ": precision too large");
    }
    byte[] out = new byte[size];
    byte fill = (byte) (scaled.signum() < 0 ? 0xFF : 0x00);
    int pad = size - unscaled.length;
    for (int i = 0; i < pad; i++) {
      out[i] = fill;
    }
    System.arraycopy(unscaled, 0, out, pad, unscaled.length);
    return out;
  }

  /** The Floe value of an Avro partition datum; accepts the forms other writers use (int or long, fixed or bytes). */
  static Object fromAvro(Type type, Object datum) {
    if (datum == null) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return (Boolean) datum;
      case INTEGER:
      case DATE:
        return Math.toIntExact(((Number) datum).longValue());
      case LONG:
      case TIME:
      case TIMESTAMP:
        return ((Number) datum).longValue();
      case FLOAT:
        return ((Number) datum).floatValue();
      case DOUBLE:
        return ((Number) datum).doubleValue();
      case STRING:
        return datum.toString();
      case UUID: {
        if (datum instanceof CharSequence) {
          return UUID.fromString(datum.toString());
        }
        ByteBuffer buf = ByteBuffer.wrap(bytesOf(datum));
        return new UUID(buf.getLong(), buf.getLong());
      }
      case FIXED:
      case BINARY:
        return ByteBuffer.wrap(bytesOf(datum));
      case DECIMAL:
        return new BigDecimal(new BigInteger(bytesOf(datum)), ((Types.DecimalType) type).scale());
      default:
        throw new IllegalArgumentException("Unsupported partition value type: " + type);
    }
  }

  private static byte[] bytesOf(Object datum) {
    if (datum instanceof GenericFixed) {
      return ((GenericFixed) datum).bytes().clone();
    }
    if (datum instanceof ByteBuffer) {
      return AvroRecords.bytes((ByteBuffer) datum);
    }
    throw new IllegalArgumentException("Expected fixed or bytes, found " + datum.getClass().getSimpleName());
  }

  /** An Avro-valid field name for a partition field name ({@code _xHH} for other characters). */
  static String avroName(String name) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      boolean digit = c >= '0' && c <= '9';
      if (letter || (digit && i > 0)) {
        sb.append(c);
      } else if (digit) {
        sb.append('_').append(c);
      } else {
        sb.append("_x").append(Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT));
      }
    }
    return sb.length() == 0 ? "_" : sb.toString();
  }
}
