package io.floe.spark.functions;

import io.floe.format.partition.TimeTransforms;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code floe.system.years(value)}: the spec's {@code year} partition value
 * (an int: years since 1970), computed by the format's {@link TimeTransforms}: floor
 * semantics, so one microsecond before the epoch is -1. Null in, null out.
 */
public final class YearsFunction extends TimeFunction {
  public static final String NAME = "years";

  public YearsFunction() {
    super(NAME, "year", true);
  }

  @Override
  BoundFunction fromDays() {
    return new FromDate();
  }

  @Override
  BoundFunction fromMicros(DataType timestampType) {
    return new FromTimestamp(timestampType);
  }

  /** Dates (days since 1970-01-01). */
  public static final class FromDate extends Bound {
    FromDate() {
      super(NAME, DataTypes.DateType, DataTypes.IntegerType);
    }

    public static int invoke(int days) {
      return TimeTransforms.yearsFromDays(days);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0));
    }
  }

  /** Timestamps and timestamp_ntz (micros since 1970-01-01T00:00, UTC for timestamp). */
  public static final class FromTimestamp extends Bound {
    FromTimestamp(DataType timestampType) {
      super(NAME, timestampType, DataTypes.IntegerType);
    }

    public static int invoke(long micros) {
      return TimeTransforms.yearsFromMicros(micros);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getLong(0));
    }
  }
}
