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
        if (unit == Unit.HOUR) {
          return Math.toIntExact(Math.floorDiv(micros, MICROS_PER_HOUR));
        }
        return fromDays(Math.toIntExact(Math.floorDiv(micros, MICROS_PER_DAY)));
      }
      throw new IllegalArgumentException(
          "Cannot apply " + name + " to value of class " + value.getClass().getName() + ": " + value);
    }

    private int fromDays(int days) {
      if (unit == Unit.DAY) {
        return days;
      }
      LocalDate date = LocalDate.ofEpochDay(days);
      int years = date.getYear() - EPOCH_YEAR;
      return unit == Unit.YEAR ? years : years * 12 + date.getMonthValue() - 1;
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
