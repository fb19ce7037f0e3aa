package io.floe.spark.functions;

import io.floe.format.partition.Truncate;
import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code floe.system.truncate(W, value)}: the spec's {@code truncate[W]} partition value, of the
 * value's own type. Numbers round down to a multiple of W (decimals on the unscaled value), strings
 * keep their first W code points, binary its first W bytes; the arithmetic is the format's
 * {@link Truncate}. Null in, null out.
 */
public final class TruncateFunction implements UnboundFunction {
  public static final String NAME = "truncate";
  private static final String USAGE = "floe.system.truncate(width, value)";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return USAGE + " - the truncate[width] partition value of value (Iceberg spec);"
        + " value: tinyint, smallint, int, bigint, decimal, string or binary";
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    DataType[] types = FloeScalarFunction.argumentTypes(inputType, USAGE);
    FloeScalarFunction.checkIntArgument(types[0], "width", USAGE);
    DataType value = types[1];
    if (value instanceof ByteType) {
      return new TruncateTinyInt();
    } else if (value instanceof ShortType) {
      return new TruncateSmallInt();
    } else if (value instanceof IntegerType) {
      return new TruncateInt();
    } else if (value instanceof LongType) {
      return new TruncateBigInt();
    } else if (value instanceof DecimalType) {
      return new TruncateDecimal((DecimalType) value);
    } else if (value instanceof StringType) {
      return new TruncateString(value);
    } else if (value instanceof BinaryType) {
      return new TruncateBinary();
    }
    throw new UnsupportedOperationException("Cannot apply " + USAGE + " to a value of type " + value.catalogString()
        + ": expected tinyint, smallint, int, bigint, decimal, string or binary");
  }

  // Spark checks primitive arguments for null before calling invoke, but passes null objects
  // (Decimal, UTF8String, byte[]) through: those variants return null for them.

  /** The width, checked: the spec requires W > 0. */
  static int checkWidth(int width) {
    if (width <= 0) {
      throw new IllegalArgumentException("Invalid width for floe.system.truncate: " + width + " (must be > 0)");
    }
    return width;
  }

  private abstract static class TruncateBase<R> extends FloeScalarFunction<R> {
    private final DataType valueType;

    TruncateBase(DataType valueType) {
      this.valueType = valueType;
    }

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public DataType[] inputTypes() {
      return new DataType[] {DataTypes.IntegerType, valueType};
    }

    @Override
    public DataType resultType() {
      return valueType;
    }

    @Override
    public String canonicalName() {
      return "floe.truncate(" + valueType.catalogString() + ")";
    }
  }

  /** tinyint: truncated as an int, then narrowed back to a byte like Iceberg's function. */
  public static final class TruncateTinyInt extends TruncateBase<Byte> {
    TruncateTinyInt() {
      super(DataTypes.ByteType);
    }

    public static byte invoke(int width, byte value) {
      return (byte) Truncate.truncateInt(checkWidth(width), value);
    }

    @Override
    public Byte produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getByte(1));
    }
  }

  /** smallint: truncated as an int, then narrowed back to a short like Iceberg's function. */
  public static final class TruncateSmallInt extends TruncateBase<Short> {
    TruncateSmallInt() {
      super(DataTypes.ShortType);
    }

    public static short invoke(int width, short value) {
      return (short) Truncate.truncateInt(checkWidth(width), value);
    }

    @Override
    public Short produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getShort(1));
    }
  }

  public static final class TruncateInt extends TruncateBase<Integer> {
    TruncateInt() {
      super(DataTypes.IntegerType);
    }

    public static int invoke(int width, int value) {
      return Truncate.truncateInt(checkWidth(width), value);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getInt(1));
    }
  }

  public static final class TruncateBigInt extends TruncateBase<Long> {
    TruncateBigInt() {
      super(DataTypes.LongType);
    }

    public static long invoke(int width, long value) {
      return Truncate.truncateLong(checkWidth(width), value);
    }

    @Override
    public Long produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getLong(1));
    }
  }

  /** Decimals: the unscaled value is truncated, the scale kept. */
  public static final class TruncateDecimal extends TruncateBase<Decimal> {
    private final int precision;
    private final int scale;

    TruncateDecimal(DecimalType valueType) {
      super(valueType);
      this.precision = valueType.precision();
      this.scale = valueType.scale();
    }

    public static Decimal invoke(int width, Decimal value) {
      return value == null ? null
          : Decimal.apply(Truncate.truncateDecimal(checkWidth(width), value.toJavaBigDecimal()));
    }

    @Override
    public Decimal produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null
          : invoke(input.getInt(0), input.getDecimal(1, precision, scale));
    }
  }

  /** Strings: the first W code points (Spark strings are UTF-8; a character is never split). */
  public static final class TruncateString extends TruncateBase<UTF8String> {
    TruncateString(DataType valueType) {
      super(valueType);
    }

    public static UTF8String invoke(int width, UTF8String value) {
      return value == null || value.numChars() <= checkWidth(width) ? value : value.substring(0, width);
    }

    @Override
    public UTF8String produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getUTF8String(1));
    }
  }

  /** Binary: the first W bytes. */
  public static final class TruncateBinary extends TruncateBase<byte[]> {
    TruncateBinary() {
      super(DataTypes.BinaryType);
    }

    public static byte[] invoke(int width, byte[] value) {
      return value == null || value.length <= checkWidth(width) ? value : Arrays.copyOf(value, width);
    }

    @Override
    public byte[] produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getBinary(1));
    }
  }
}
