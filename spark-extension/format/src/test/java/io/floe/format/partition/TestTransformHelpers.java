package io.floe.format.partition;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Random;
import java.util.UUID;
import org.junit.Test;

/**
 * The rest of docs/format.md, 'Partition transforms': identity and void, URL-escaped partition paths,
 * parsing every transform name; and the typed static helpers that Floe's SQL functions call agree
 * with the transforms' {@code apply} on random values (one implementation, two entry points).
 */
public class TestTransformHelpers {
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  @Test
  public void identityKeepsTheValueAndVoidIsAlwaysNull() {
    Object[] values = {34, 34L, 1.5f, 2.5d, true, "iceberg", new BigDecimal("14.20"),
        ByteBuffer.wrap(new byte[] {0, 1}), UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")};
    for (Object v : values) {
      assertSame(v, Transforms.identity().apply(v));
      assertNull(Transforms.alwaysNull().apply(v));
    }
    assertNull(Transforms.identity().apply(null));
    assertNull(Transforms.alwaysNull().apply(null));
    assertTrue(Transforms.alwaysNull().isVoid());
    assertTrue(Transforms.identity().isIdentity());
    assertEquals(Types.LongType.get(), Transforms.alwaysNull().resultType(Types.LongType.get()));
  }

  @Test
  public void everySpecNameParses() {
    String[] names = {"identity", "void", "year", "month", "day", "hour", "bucket[16]", "truncate[4]"};
    for (String name : names) {
      assertEquals(name, Transforms.fromString(name).toString());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Transforms.fromString("days"));
    assertEquals("Unsupported partition transform: days", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Transforms.fromString("bucket[-1]"));
    assertThrows(IllegalArgumentException.class, () -> Transforms.fromString("truncate"));
  }

  @Test
  public void partitionPathValuesAreUrlEscaped() {
    Schema schema = new Schema(Types.NestedField.optional(1, "name", Types.StringType.get()),
        Types.NestedField.optional(2, "a b", Types.StringType.get()));
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("name").identity("a b").build();
    assertEquals("name=a%2Fb+c%3D%25/a+b=%C3%A9", spec.partitionToPath(new Object[] {"a/b c=%", "\u00e9"}));
    assertEquals("name=null/a+b=null", spec.partitionToPath(new Object[] {null, null}));
  }

  @Test
  public void longPartitionFolderNamesAreShortenedWithAHash() {
    Schema schema = new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("s").build();
    String ascii = spec.partitionToPath(new Object[] {"x".repeat(300)});
    String other = spec.partitionToPath(new Object[] {"x".repeat(299) + "y"});
    assertEquals(PartitionSpec.MAX_SEGMENT_LENGTH, ascii.length());
    assertTrue(ascii, ascii.matches("s=x{109}-[0-9a-f]{16}"));
    assertTrue(other.startsWith("s=xxx") && !other.equals(ascii));
    // multibyte: each character is 6 escaped characters; a %XX escape is never cut
    String multibyte = spec.partitionToPath(new Object[] {"\u00e9".repeat(100)});
    assertTrue(multibyte, multibyte.length() <= PartitionSpec.MAX_SEGMENT_LENGTH);
    assertTrue(multibyte, multibyte.matches("s=(%C3%A9)+-[0-9a-f]{16}"));
    // at the limit: unchanged
    String limit = "x".repeat(PartitionSpec.MAX_SEGMENT_LENGTH - 2);
    assertEquals("s=" + limit, spec.partitionToPath(new Object[] {limit}));
    String nested = spec.partitionToPath(new Object[] {limit + "x"});
    assertEquals(PartitionSpec.MAX_SEGMENT_LENGTH, nested.length());
  }

  @Test
  public void bucketHelpersAgreeWithApply() {
    Random random = new Random(7);
    Transform b16 = Transforms.bucket(16);
    Transform b7 = Transforms.bucket(7);
    for (int i = 0; i < 10_000; i++) {
      long l = random.nextLong();
      int n = random.nextInt();
      assertEquals(b16.apply(l), Bucket.bucketOf(Bucket.hashLong(l), 16));
      assertEquals(b7.apply(n), Bucket.bucketOf(Bucket.hashLong(n), 7));
      byte[] bytes = new byte[random.nextInt(20)];
      random.nextBytes(bytes);
      assertEquals(b16.apply(ByteBuffer.wrap(bytes)), Bucket.bucketOf(Bucket.hashBytes(bytes), 16));
      BigDecimal d = new BigDecimal(new BigInteger(random.nextInt(120) + 1, random), random.nextInt(12));
      d = random.nextBoolean() ? d.negate() : d;
      assertEquals(b16.apply(d), Bucket.bucketOf(Bucket.hashDecimal(d), 16));
      String s = new String(bytes, StandardCharsets.UTF_8);
      assertEquals(b16.apply(s), Bucket.bucketOf(Bucket.hashBytes(s.getBytes(StandardCharsets.UTF_8)), 16));
    }
    assertEquals(0, Bucket.bucketOf(Integer.MIN_VALUE, 16));
    assertEquals(Integer.MAX_VALUE % 16, Bucket.bucketOf(-1, 16));
  }

  @Test
  public void truncateHelpersAgreeWithApply() {
    Random random = new Random(11);
    for (int width : new int[] {1, 3, 10, 50, 1000}) {
      Transform t = Transforms.truncate(width);
      for (int i = 0; i < 5_000; i++) {
        int n = random.nextInt(Integer.MAX_VALUE) - Integer.MAX_VALUE / 2;
        long l = random.nextLong() / 2;
        assertEquals(t.apply(n), Truncate.truncateInt(width, n));
        assertEquals(t.apply(l), Truncate.truncateLong(width, l));
        BigDecimal d = BigDecimal.valueOf(random.nextLong() / 4, random.nextInt(10));
        assertEquals(t.apply(d), Truncate.truncateDecimal(width, d));
      }
      assertEquals(t.apply("\ud83d\ude00abc\u00e9"), Truncate.truncateString(width, "\ud83d\ude00abc\u00e9"));
    }
    assertEquals(-20, Truncate.truncateInt(10, -11));
    assertEquals(-20L, Truncate.truncateLong(10, -11L));
    assertEquals(new BigDecimal("-0.10"), Truncate.truncateDecimal(10, new BigDecimal("-0.05")));
    assertEquals("\ud83d\ude00a", Truncate.truncateString(2, "\ud83d\ude00abc"));
  }

  @Test
  public void timeHelpersAgreeWithApply() {
    Random random = new Random(13);
    long min = LocalDate.of(1, 1, 1).toEpochDay() * MICROS_PER_DAY;
    long max = LocalDate.of(9999, 12, 31).toEpochDay() * MICROS_PER_DAY;
    for (int i = 0; i < 10_000; i++) {
      long micros = min + (long) (random.nextDouble() * (max - min));
      int days = Math.toIntExact(Math.floorDiv(micros, MICROS_PER_DAY));
      assertEquals(TimeTransforms.year().apply(micros), TimeTransforms.yearsFromMicros(micros));
      assertEquals(TimeTransforms.month().apply(micros), TimeTransforms.monthsFromMicros(micros));
      assertEquals(TimeTransforms.day().apply(micros), TimeTransforms.daysFromMicros(micros));
      assertEquals(TimeTransforms.hour().apply(micros), TimeTransforms.hoursFromMicros(micros));
      assertEquals(TimeTransforms.year().apply(days), TimeTransforms.yearsFromDays(days));
      assertEquals(TimeTransforms.month().apply(days), TimeTransforms.monthsFromDays(days));
      assertEquals(days, TimeTransforms.daysFromMicros(micros));
      LocalDate date = LocalDate.ofEpochDay(days);
      assertEquals(date.getYear() - 1970, TimeTransforms.yearsFromDays(days));
      assertEquals((date.getYear() - 1970) * 12 + date.getMonthValue() - 1, TimeTransforms.monthsFromDays(days));
    }
    assertEquals(-1, TimeTransforms.hoursFromMicros(-1L));
    assertEquals(-1, TimeTransforms.daysFromMicros(-1L));
    assertEquals(-1, TimeTransforms.monthsFromMicros(-1L));
    assertEquals(-1, TimeTransforms.yearsFromMicros(-1L));
    assertEquals(-12, TimeTransforms.monthsFromDays(-365));
    assertEquals(-2, TimeTransforms.yearsFromDays(-366));
  }
}
