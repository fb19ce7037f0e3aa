package io.floe.format.partition;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.UUID;
import org.junit.Test;

/** The bucket transform against every vector of docs/format.md, 'Bucket' (spec Appendix B). */
public class TestBucket {
  private static final Transform BUCKET_16 = Transforms.bucket(16);

  private static ByteBuffer hex(String hex) {
    return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
  }

  private static long micros(LocalDateTime ts) {
    return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), ts);
  }

  /**
   * Checks one table row: the bytes hashed give the murmur3 value, the value hashes to it, and
   * bucket[16] of the value is the expected bucket.
   */
  private static void assertVector(Object value, String bytesHashed, int murmur, int bucket16) {
    assertEquals("murmur3 of " + bytesHashed, murmur, Bucket.murmur3(hex(bytesHashed)));
    assertEquals("hash of " + value, murmur, Bucket.hash(value));
    assertEquals("bucket[16] of " + value, bucket16, BUCKET_16.apply(value));
  }

  @Test
  public void intAndLong() {
    assertVector(34, "2200000000000000", 2017239379, 3);
    assertVector(34L, "2200000000000000", 2017239379, 3);
  }

  @Test
  public void decimal() {
    assertVector(new BigDecimal("14.20"), "058c", -500754589, 3);
  }

  @Test
  public void date() {
    int days = (int) LocalDate.of(2017, 11, 16).toEpochDay();
    assertEquals(17486, days);
    assertVector(days, "4e44000000000000", -653330422, 10);
  }

  @Test
  public void time() {
    long micros = LocalTime.of(22, 31, 8).toNanoOfDay() / 1000;
    assertEquals(81068000000L, micros);
    assertVector(micros, "008307e012000000", -662762989, 3);
  }

  @Test
  public void timestampAndTimestamptz() {
    long local = micros(LocalDateTime.of(2017, 11, 16, 22, 31, 8));
    long utc = ChronoUnit.MICROS.between(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
        OffsetDateTime.of(2017, 11, 16, 14, 31, 8, 0, ZoneOffset.ofHours(-8)));
    assertEquals(local, utc);
    assertVector(local, "00c3262d215e0500", -2047944441, 7);
    long withMicro = micros(LocalDateTime.of(2017, 11, 16, 22, 31, 8, 1000));
    assertVector(withMicro, "01c3262d215e0500", -1207196810, 6);
  }

  @Test
  public void string() {
    assertVector("iceberg", "69636562657267", 1210000089, 9);
    assertVector(new StringBuilder("iceberg"), "69636562657267", 1210000089, 9);
    assertVector("34", "3334", -427558391, 9);
    assertNotEquals(Bucket.hash("34"), Bucket.hash(34));
  }

  @Test
  public void uuid() {
    assertVector(UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
        "f79c3e09677c4bbda4793f349cb785e7", 1488055340, 12);
  }

  @Test
  public void fixedAndBinary() {
    assertVector(hex("00010203"), "00010203", -188683207, 9);
    ByteBuffer offset = hex("ff00010203");
    offset.position(1);
    assertEquals(-188683207, Bucket.hash(offset));
    assertEquals(1, offset.position());
  }

  @Test
  public void definedHashesOfTypesThatCannotBeBucketed() {
    assertVector(true, "0100000000000000", 1392991556, 4);
    assertVector(1.0f, "000000000000f03f", -142385009, 15);
    assertVector(1.0d, "000000000000f03f", -142385009, 15);
    assertVector(0.0d, "0000000000000000", 1669671676, 12);
    assertVector(-0.0d, "0000000000000000", 1669671676, 12);
    assertVector(0.0f, "0000000000000000", 1669671676, 12);
    assertVector(-0.0f, "0000000000000000", 1669671676, 12);
    assertEquals(Bucket.hashLong(0x7ff8000000000000L), Bucket.hash(Double.NaN));
    assertEquals(Bucket.hashLong(0x7ff8000000000000L), Bucket.hash(Float.NaN));
  }

  @Test
  public void extraVectors() {
    assertVector(0L, "0000000000000000", 1669671676, 12);
    assertVector(-1L, "ffffffffffffffff", 1651860712, 8);
    assertVector("", "", 0, 0);
    assertVector(new BigDecimal("-1.00"), "9c", -608597965, 3);
    assertVector(new BigDecimal("0.00"), "00", 1364076727, 7);
  }

  @Test
  public void intAndLongHashTheSameSoPromotionKeepsBuckets() {
    for (int v : new int[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 123456}) {
      assertEquals(Bucket.hash((long) v), Bucket.hash(v));
      assertEquals(Bucket.hashLong(v), Bucket.murmur3(java.nio.ByteBuffer.allocate(8)
          .order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, v)));
    }
  }

  @Test
  public void resultIsNeverNegativeAndNullStaysNull() {
    assertNull(BUCKET_16.apply(null));
    Transform b7 = Transforms.bucket(7);
    for (long v = -1000; v < 1000; v++) {
      int bucket = (Integer) b7.apply(v);
      assertTrue(bucket >= 0 && bucket < 7);
    }
    assertEquals(0, Transforms.bucket(1).apply("anything"));
  }

  @Test
  public void invalidBucketCounts() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> Transforms.bucket(0));
    assertEquals("Invalid number of buckets: 0 (must be > 0)", zero.getMessage());
    IllegalArgumentException neg = assertThrows(IllegalArgumentException.class, () -> Transforms.bucket(-3));
    assertEquals("Invalid number of buckets: -3 (must be > 0)", neg.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Transforms.fromString("bucket[0]"));
  }

  @Test
  public void unsupportedValuesAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> BUCKET_16.apply(new Object()));
  }

  @Test
  public void sourceTypes() {
    Type[] ok = {Types.IntegerType.get(), Types.LongType.get(), Types.DecimalType.of(9, 2), Types.DateType.get(),
        Types.TimeType.get(), Types.TimestampType.withZone(), Types.TimestampType.withoutZone(),
        Types.StringType.get(), Types.UUIDType.get(), Types.FixedType.ofLength(4), Types.BinaryType.get()};
    for (Type t : ok) {
      assertTrue(t.toString(), BUCKET_16.canTransform(t));
      assertEquals(Types.IntegerType.get(), BUCKET_16.resultType(t));
    }
    Type[] notOk = {Types.BooleanType.get(), Types.FloatType.get(), Types.DoubleType.get(),
        Types.StructType.of(Types.NestedField.optional(1, "a", Types.IntegerType.get()))};
    for (Type t : notOk) {
      assertFalse(t.toString(), BUCKET_16.canTransform(t));
    }
  }

  @Test
  public void nameEqualityAndParsing() {
    assertEquals("bucket[16]", BUCKET_16.toString());
    assertEquals(16, ((Bucket) BUCKET_16).numBuckets());
    assertEquals(BUCKET_16, Transforms.fromString("bucket[16]"));
    assertEquals(BUCKET_16.hashCode(), Transforms.fromString(" BUCKET[16] ").hashCode());
    assertEquals("bucket[16]".hashCode(), BUCKET_16.hashCode());
    assertNotEquals(BUCKET_16, Transforms.bucket(8));
    assertNotEquals(BUCKET_16, Transforms.truncate(16));
    assertFalse(BUCKET_16.preservesOrder());
    assertEquals("3", BUCKET_16.toHumanString(Types.LongType.get(), 3));
  }
}
