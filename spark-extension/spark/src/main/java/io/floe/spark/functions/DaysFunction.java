package io.floe.spark.functions;

import io.floe.format.partition.TimeTransforms;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code floe.system.days(value)}: the spec's {@code day} partition value
 * (a date, like Iceberg's function), computed by the format's {@link TimeTransforms}: floor
 * semantics, so one microsecond before the epoch is -1. Null in, null out.
 */
public final class DaysFunction extends TimeFunction {
  public static final String NAME = "days";

  public DaysFunction() {
    super(NAME, "day", true);
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
      super(NAME, DataTypes.DateType, DataTypes.DateType);
    }

    public static int invoke(int days) {
      return days;
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getInt(0));
    }
  }

  /** Timestamps and timestamp_ntz (micros since 1970-01-01T00:00, UTC for timestamp). */
  public static final class FromTimestamp extends Bound {
    FromTimestamp(DataType timestampType) {
      super(NAME, timestampType, DataTypes.DateType);
    }

    public static int invoke(long micros) {
      return TimeTransforms.daysFromMicros(micros);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getLong(0));
    }
  }
}
