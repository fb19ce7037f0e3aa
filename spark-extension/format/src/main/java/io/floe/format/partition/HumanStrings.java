package io.floe.format.partition;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;

/**
 * Human forms of partition values, as used in Hive-style partition paths: dates {@code 2024-01-01},
 * times {@code 10:00:00}, timestamps {@code 2024-01-01T10:00:00} ({@code +00:00} appended for
 * timestamptz, {@code .ffffff} when micros are set), binary and fixed as base64, decimals in plain
 * notation. Time transform ordinals: year {@code 2024}, month {@code 2024-01}, day
 * {@code 2024-01-01}, hour {@code 2024-01-01-10}. Null is {@code null}.
 */
public final class HumanStrings {
  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final int EPOCH_YEAR = 1970;
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

  private HumanStrings() {}

  /** The human form of a value of a primitive type. */
  public static String of(Type type, Object value) {
    if (value == null) {
      return "null";
    }
    switch (type.typeId()) {
      case DATE:
        return day((Integer) value);
      case TIME:
        return time((Long) value);
      case TIMESTAMP:
        String ts = timestamp((Long) value);
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? ts + "+00:00" : ts;
      case FIXED:
      case BINARY:
        ByteBuffer buf = (ByteBuffer) value;
        byte[] bytes = new byte[buf.remaining()];
        buf.duplicate().get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
      case DECIMAL:
        return ((BigDecimal) value).toPlainString();
      default:
        return value.toString();
    }
  }

  public static String year(int yearOrdinal) {
    return String.format(Locale.ROOT, "%04d", EPOCH_YEAR + yearOrdinal);
  }

  public static String month(int monthOrdinal) {
    return String.format(Locale.ROOT, "%04d-%02d",
        EPOCH_YEAR + Math.floorDiv(monthOrdinal, 12), Math.floorMod(monthOrdinal, 12) + 1);
  }

  public static String day(int dayOrdinal) {
    return LocalDate.ofEpochDay(dayOrdinal).toString();
  }

  public static String hour(int hourOrdinal) {
    return String.format(Locale.ROOT, "%s-%02d",
        day(Math.floorDiv(hourOrdinal, 24)), Math.floorMod(hourOrdinal, 24));
  }

  private static String time(long micros) {
    LocalTime t = LocalTime.ofNanoOfDay(micros * 1000);
    return TIME.format(t) + fraction(micros);
  }

  private static String timestamp(long micros) {
    long seconds = Math.floorDiv(micros, MICROS_PER_SECOND);
    LocalDateTime dt = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
    return SECONDS.format(dt) + fraction(micros);
  }

  private static String fraction(long micros) {
    long frac = Math.floorMod(micros, MICROS_PER_SECOND);
    return frac == 0 ? "" : String.format(Locale.ROOT, ".%06d", frac);
  }
}
