package io.floe.format.partition;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import org.junit.Test;

/** year, month, day and hour against the vectors of docs/format.md, 'Time transforms' (floor semantics). */
public class TestTimeTransforms {
  private static final Transform YEAR = TimeTransforms.year();
  private static final Transform MONTH = TimeTransforms.month();
  private static final Transform DAY = TimeTransforms.day();
  private static final Transform HOUR = TimeTransforms.hour();

  private static long micros(String isoLocal) {
    return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), LocalDateTime.parse(isoLocal));
  }

  private static void assertOrdinals(long micros, int year, int month, int day, int hour) {
    assertEquals("year", year, YEAR.apply(micros));
    assertEquals("month", month, MONTH.apply(micros));
    assertEquals("day", day, DAY.apply(micros));
    assertEquals("hour", hour, HOUR.apply(micros));
  }

  @Test
  public void timestampVectors() {
    assertOrdinals(micros("2017-12-01T10:12:55.038194"), 47, 575, 17501, 420034);
    assertOrdinals(micros("1970-01-01T00:00:01.000001"), 0, 0, 0, 0);
    assertOrdinals(micros("1969-12-31T23:59:59.999999"), -1, -1, -1, -1);
    assertOrdinals(0L, 0, 0, 0, 0);
    assertOrdinals(-1L, -1, -1, -1, -1);
  }

  @Test
  public void dateVectors() {
    assertEquals(-1, YEAR.apply(-365));
    assertEquals(-12, MONTH.apply(-365));
    assertEquals(-2, YEAR.apply(-366));
    assertEquals(-13, MONTH.apply(-366));
    assertEquals(-366, DAY.apply(-366));
    int dec1 = (int) LocalDate.of(2017, 12, 1).toEpochDay();
    assertEquals(47, YEAR.apply(dec1));
    assertEquals(575, MONTH.apply(dec1));
    assertEquals(17501, DAY.apply(dec1));
    assertEquals(-1, YEAR.apply(-1));
    assertEquals(-1, MONTH.apply(-1));
  }

  @Test
  public void nullStaysNull() {
    for (Transform t : new Transform[] {YEAR, MONTH, DAY, HOUR}) {
      assertNull(t.apply(null));
    }
  }

  @Test
  public void hourCannotTransformADate() {
    assertFalse(HOUR.canTransform(Types.DateType.get()));
    assertThrows(IllegalArgumentException.class, () -> HOUR.apply(17501));
  }

  @Test
  public void sourceAndResultTypes() {
    Type date = Types.DateType.get();
    Type[] timestamps = {Types.TimestampType.withZone(), Types.TimestampType.withoutZone()};
    for (Transform t : new Transform[] {YEAR, MONTH, DAY}) {
      assertTrue(t.canTransform(date));
    }
    for (Transform t : new Transform[] {YEAR, MONTH, DAY, HOUR}) {
      for (Type ts : timestamps) {
        assertTrue(t + " of " + ts, t.canTransform(ts));
      }
      assertFalse(t.canTransform(Types.LongType.get()));
      assertFalse(t.canTransform(Types.StringType.get()));
      assertFalse(t.canTransform(Types.TimeType.get()));
      assertTrue(t.preservesOrder());
    }
    assertEquals(Types.IntegerType.get(), YEAR.resultType(date));
    assertEquals(Types.IntegerType.get(), MONTH.resultType(timestamps[0]));
    assertEquals(Types.DateType.get(), DAY.resultType(timestamps[0]));
    assertEquals(Types.DateType.get(), DAY.resultType(date));
    assertEquals(Types.IntegerType.get(), HOUR.resultType(timestamps[1]));
  }

  @Test
  public void namesParsingAndEquality() {
    assertEquals("year", YEAR.toString());
    assertEquals("month", MONTH.toString());
    assertEquals("day", DAY.toString());
    assertEquals("hour", HOUR.toString());
    for (Transform t : new Transform[] {YEAR, MONTH, DAY, HOUR}) {
      assertEquals(t, Transforms.fromString(t.toString()));
      assertEquals(t.toString().hashCode(), t.hashCode());
    }
    assertEquals(DAY, Transforms.fromString("DAY"));
    assertNotEquals(DAY, HOUR);
  }

  @Test
  public void humanStrings() {
    Type ts = Types.TimestampType.withoutZone();
    long t = micros("2024-01-01T10:00:00");
    assertEquals("2024", YEAR.toHumanString(ts, YEAR.apply(t)));
    assertEquals("2024-01", MONTH.toHumanString(ts, MONTH.apply(t)));
    assertEquals("2024-01-01", DAY.toHumanString(ts, DAY.apply(t)));
    assertEquals("2024-01-01-10", HOUR.toHumanString(ts, HOUR.apply(t)));
    assertEquals("2024-01-01-00", HOUR.toHumanString(ts, HOUR.apply(micros("2024-01-01T00:59:59"))));
    assertEquals("null", HOUR.toHumanString(ts, null));
  }
}
