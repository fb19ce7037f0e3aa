package io.floe.format.partition;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.time.LocalDate;
import java.util.Locale;

/**
 * The {@code year}, {@code month}, {@code day} and {@code hour} transforms: ordinals counted from
 * 1970-01-01T00:00 UTC, rounding toward negative infinity (one microsecond before the epoch is hour,
 * day, month and year -1). Dates are Integer days; timestamps are Long micros.
 */
public final class TimeTransforms {
  private static final long MICROS_PER_HOUR = 3_600_000_000L;
  private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;
  private static final int EPOCH_YEAR = 1970;

  private static final Transform YEAR = new TimeTransform(Unit.YEAR);
  private static final Transform MONTH = new TimeTransform(Unit.MONTH);
  private static final Transform DAY = new TimeTransform(Unit.DAY);
  private static final Transform HOUR = new TimeTransform(Unit.HOUR);

  private TimeTransforms() {}

  public static Transform year() {
    return YEAR;
  }

  public static Transform month() {
    return MONTH;
  }

  public static Transform day() {
    return DAY;
  }

  public static Transform hour() {
    return HOUR;
  }

  /** Years from 1970 of a date (days from the epoch), rounding toward negative infinity. */
  public static int yearsFromDays(int days) {
    return LocalDate.ofEpochDay(days).getYear() - EPOCH_YEAR;
  }

  /** Months from 1970-01 of a date (days from the epoch), rounding toward negative infinity. */
  public static int monthsFromDays(int days) {
    LocalDate date = LocalDate.ofEpochDay(days);
    return (date.getYear() - EPOCH_YEAR) * 12 + date.getMonthValue() - 1;
  }

  /** Days from the epoch of a timestamp in micros, rounding toward negative infinity. */
  public static int daysFromMicros(long micros) {
    return Math.toIntExact(Math.floorDiv(micros, MICROS_PER_DAY));
  }

  /** Hours from the epoch of a timestamp in micros, rounding toward negative infinity. */
  public static int hoursFromMicros(long micros) {
    return Math.toIntExact(Math.floorDiv(micros, MICROS_PER_HOUR));
  }

  /** Years from 1970 of a timestamp in micros, rounding toward negative infinity. */
  public static int yearsFromMicros(long micros) {
    return yearsFromDays(daysFromMicros(micros));
  }

  /** Months from 1970-01 of a timestamp in micros, rounding toward negative infinity. */
  public static int monthsFromMicros(long micros) {
    return monthsFromDays(daysFromMicros(micros));
  }

  private enum Unit {
    YEAR, MONTH, DAY, HOUR
  }

  private static final class TimeTransform implements Transform {
    private final Unit unit;
    private final String name;

    private TimeTransform(Unit unit) {
      this.unit = unit;
      this.name = unit.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Object apply(Object value) {
      if (value == null) {
        return null;
      } else if (value instanceof Integer) {
        if (unit == Unit.HOUR) {
          throw new IllegalArgumentException("Cannot apply hour to a date value: " + value);
        }
        return fromDays((Integer) value);
      } else if (value instanceof Long) {
        long micros = (Long) value;
        return unit == Unit.HOUR ? hoursFromMicros(micros) : fromDays(daysFromMicros(micros));
      }
      throw new IllegalArgumentException(
          "Cannot apply " + name + " to value of class " + value.getClass().getName() + ": " + value);
    }

    private int fromDays(int days) {
      switch (unit) {
        case YEAR:
          return yearsFromDays(days);
        case MONTH:
          return monthsFromDays(days);
        default:
          return days;
      }
    }

    @Override
    public boolean canTransform(Type sourceType) {
      Type.TypeID id = sourceType.typeId();
      return id == Type.TypeID.TIMESTAMP || (id == Type.TypeID.DATE && unit != Unit.HOUR);
    }

    @Override
    public Type resultType(Type sourceType) {
      return unit == Unit.DAY ? Types.DateType.get() : Types.IntegerType.get();
    }

    @Override
    public String toHumanString(Type sourceType, Object partitionValue) {
      if (partitionValue == null) {
        return "null";
      }
      int ordinal = (Integer) partitionValue;
      switch (unit) {
        case YEAR:
          return HumanStrings.year(ordinal);
        case MONTH:
          return HumanStrings.month(ordinal);
        case DAY:
          return HumanStrings.day(ordinal);
        default:
          return HumanStrings.hour(ordinal);
      }
    }

    @Override
    public boolean preservesOrder() {
      return true;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof TimeTransform && ((TimeTransform) o).unit == unit;
    }

    @Override
    public int hashCode() {
      return name.hashCode();
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
