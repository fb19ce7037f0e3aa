package io.floe.spark.functions;

import io.floe.format.partition.TimeTransforms;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code floe.system.hours(value)}: the spec's {@code hour} partition value
 * (an int: hours since 1970-01-01T00:00), computed by the format's {@link TimeTransforms}: floor
 * semantics, so one microsecond before the epoch is -1. Null in, null out.
 */
public final class HoursFunction extends TimeFunction {
  public static final String NAME = "hours";

  public HoursFunction() {
    super(NAME, "hour", false);
  }

  @Override
  BoundFunction fromDays() {
    throw new UnsupportedOperationException("floe.system.hours does not apply to dates");
  }

  @Override
  BoundFunction fromMicros(DataType timestampType) {
    return new FromTimestamp(timestampType);
  }

  /** Timestamps and timestamp_ntz (micros since 1970-01-01T00:00, UTC for timestamp). */
  public static final class FromTimestamp extends Bound {
    FromTimestamp(DataType timestampType) {
      super(NAME, timestampType, DataTypes.IntegerType);
    }

    public static int invoke(long micros) {
      return TimeTransforms.hoursFromMicros(micros);
    }

    @Override
    public Integer produceResult(InternalRow input) {
      return input.isNullAt(0) ? null : invoke(input.getLong(0));
    }
  }
}
