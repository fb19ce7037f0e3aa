package io.floe.spark.util;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.UUID;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Converts single primitive values between Catalyst's internal representation (UTF8String,
 * Decimal, Integer days, Long micros, byte[]) and Floe's Java representation (String, BigDecimal,
 * Integer, Long, ByteBuffer, UUID). Nulls stay null; nested values are not supported.
 */
public final class SparkValues {
  private SparkValues() {}

  /** A Catalyst value of the given Spark type as a Floe Java value. */
  public static Object toJava(DataType type, Object value) {
    if (value == null) {
      return null;
    }
    if (type instanceof BooleanType || type instanceof IntegerType || type instanceof LongType
        || type instanceof FloatType || type instanceof DoubleType || type instanceof DateType
        || type instanceof TimestampType || type instanceof TimestampNTZType) {
      return value;
    } else if (type instanceof ByteType || type instanceof ShortType) {
      return ((Number) value).intValue();
    } else if (type instanceof StringType) {
      return value.toString(); // UTF8String or String
    } else if (type instanceof DecimalType) {
      return value instanceof Decimal ? ((Decimal) value).toJavaBigDecimal() : (BigDecimal) value;
    } else if (type instanceof BinaryType) {
      return value instanceof ByteBuffer ? value : ByteBuffer.wrap((byte[]) value);
    }
    throw new IllegalArgumentException("Unsupported Spark type for value conversion: " + type.catalogString());
  }

  /** A Floe Java value of the given Floe type as a Catalyst value of {@link SparkSchemas#convert(Type)}. */
  public static Object toCatalyst(Type type, Object value) {
    if (value == null) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
      case DATE:
      case TIME:
      case TIMESTAMP:
        return value;
      case STRING:
        return UTF8String.fromString(value.toString());
      case UUID:
        return UTF8String.fromString(((UUID) value).toString());
      case FIXED:
      case BINARY:
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return Decimal.apply((BigDecimal) value, decimal.precision(), decimal.scale());
      default:
        throw new IllegalArgumentException("Unsupported type for value conversion: " + type);
    }
  }

  /**
   * A Floe Java value made fit to travel from executors to the driver: a binary value (ByteBuffer,
   * which does not serialize) as a copy of its bytes; other values as they are.
   */
  public static Object toSerializable(Object value) {
    if (value instanceof ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return bytes;
    }
    return value;
  }

  /** The Floe Java value of what {@link #toSerializable} returned. */
  public static Object fromSerializable(Object value) {
    return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
  }
}
