package io.floe.spark.functions;

import io.floe.format.partition.Bucket;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code floe.system.bucket(N, value)}: the spec's {@code bucket[N]} partition value (an int in
 * [0, N)) of a tinyint, smallint, int, bigint, decimal, date, timestamp, timestamp_ntz, string or
 * binary value, computed by the format's {@link Bucket} hashing. Null in, null out.
 */
public final class BucketFunction implements UnboundFunction {
  public static final String NAME = "bucket";
  private static final String USAGE = "floe.system.bucket(numBuckets, value)";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return USAGE + " - the bucket[numBuckets] partition value of value (murmur3 hash mod numBuckets, Iceberg spec);"
        + " value: tinyint, smallint, int, bigint, decimal, date, timestamp, timestamp_ntz, string or binary";
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    DataType[] types = FloeScalarFunction.argumentTypes(inputType, USAGE);
    FloeScalarFunction.checkIntArgument(types[0], "numBuckets", USAGE);
    DataType value = types[1];
    if (value instanceof ByteType || value instanceof ShortType || value instanceof IntegerType) {
      return new BucketInt(DataTypes.IntegerType);
    } else if (value instanceof DateType) {
      return new BucketInt(DataTypes.DateType);
    } else if (value instanceof LongType || value instanceof TimestampType || value instanceof TimestampNTZType) {
      return new BucketLong(value);
    } else if (value instanceof DecimalType) {
      return new BucketDecimal((DecimalType) value);
    } else if (value instanceof StringType) {
      return new BucketString(value);
    } else if (value instanceof BinaryType) {
      return new BucketBinary();
    }
    throw new UnsupportedOperationException("Cannot apply " + USAGE + " to a value of type " + value.catalogString()
        + ": expected tinyint, smallint, int, bigint, decimal, date, timestamp, timestamp_ntz, string or binary");
  }

  // Spark checks primitive arguments for null before calling invoke, but passes null objects
  // (Decimal, UTF8String, byte[]) through: those variants return a boxed, possibly null, result.

  /** The number of buckets, checked: the spec requires N > 0. */
  static int checkNumBuckets(int numBuckets) {
    if (numBuckets <= 0) {
      throw new IllegalArgumentException("Invalid number of buckets for floe.system.bucket: " + numBuckets
          + " (must be > 0)");
    }
    return numBuckets;
  }

  private abstract static class BucketBase extends FloeScalarFunction<Integer> {
    private final DataType valueType;

    BucketBase(DataType valueType) {
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
      return DataTypes.IntegerType;
    }

    @Override
    public String canonicalName() {
      return "floe.bucket(" + valueType.catalogString() + ")";
    }
  }

  /** tinyint, smallint and int (widened to int) and date (days): hashed as an 8-byte long. */
  public static final class BucketInt extends BucketBase {
    BucketInt(DataType valueType) {
      super(valueType);
    }

    public static int invoke(int numBuckets, int value) {
      return Bucket.bucketOf(Bucket.hashLong(value), checkNumBuckets(numBuckets));
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getInt(1));
    }
  }

  /** bigint, and timestamps as micros. */
  public static final class BucketLong extends BucketBase {
    BucketLong(DataType valueType) {
      super(valueType);
    }

    public static int invoke(int numBuckets, long value) {
      return Bucket.bucketOf(Bucket.hashLong(value), checkNumBuckets(numBuckets));
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getLong(1));
    }
  }

  /** Decimals: the unscaled value's minimal big-endian bytes (the scale is not hashed). */
  public static final class BucketDecimal extends BucketBase {
    private final int precision;
    private final int scale;

    BucketDecimal(DecimalType valueType) {
      super(valueType);
      this.precision = valueType.precision();
      this.scale = valueType.scale();
    }

    public static Integer invoke(int numBuckets, Decimal value) {
      return value == null ? null
          : Bucket.bucketOf(Bucket.hashDecimal(value.toJavaBigDecimal()), checkNumBuckets(numBuckets));
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null
          : invoke(input.getInt(0), input.getDecimal(1, precision, scale));
    }
  }

  /** Strings: their UTF-8 bytes. */
  public static final class BucketString extends BucketBase {
    BucketString(DataType valueType) {
      super(valueType);
    }

    public static Integer invoke(int numBuckets, UTF8String value) {
      return value == null ? null : Bucket.bucketOf(Bucket.hashBytes(value.getBytes()), checkNumBuckets(numBuckets));
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getUTF8String(1));
    }
  }

  /** Binary: its bytes. */
  public static final class BucketBinary extends BucketBase {
    BucketBinary() {
      super(DataTypes.BinaryType);
    }

    public static Integer invoke(int numBuckets, byte[] value) {
      return value == null ? null : Bucket.bucketOf(Bucket.hashBytes(value), checkNumBuckets(numBuckets));
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) || input.isNullAt(1) ? null : invoke(input.getInt(0), input.getBinary(1));
    }
  }
}
