package io.floe.format.stats;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.apache.datasketches.theta.UpdateSketch;
import org.junit.Test;

/**
 * The unboxed updates Floe's Spark job uses hash exactly the single-value serialization Iceberg
 * feeds its sketches ({@code update(Conversions.toByteBuffer(type, value))}): a sketch built each
 * way from the same values has the same bytes.
 */
public class TestThetaUpdates {
  private static final Random RANDOM = new Random(42);
  private final ThetaUpdates updates = new ThetaUpdates();

  private static <T> void assertSameSketch(Type type, List<T> values, BiConsumer<UpdateSketch, T> fast) {
    UpdateSketch reference = ThetaSketches.newSketch();
    UpdateSketch viaFast = ThetaSketches.newSketch();
    for (T value : values) {
      ThetaSketches.update(reference, type, value);
      fast.accept(viaFast, value);
    }
    assertEquals(type.toString(), values.stream().distinct().count(), (long) reference.getEstimate());
    assertArrayEquals(type.toString(), ThetaSketches.toBlob(reference), ThetaSketches.toBlob(viaFast));
  }

  @Test
  public void intsAndDatesHashTheirFourLittleEndianBytes() {
    List<Integer> values = List.of(0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 19_000, RANDOM.nextInt());
    assertSameSketch(Types.IntegerType.get(), values, updates::updateInt);
    assertSameSketch(Types.DateType.get(), values, updates::updateInt);
  }

  @Test
  public void longsTimesAndTimestampsHashTheirEightLittleEndianBytes() {
    List<Long> values = List.of(0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 1_700_000_000_000_000L, RANDOM.nextLong());
    assertSameSketch(Types.LongType.get(), values, updates::updateLong);
    assertSameSketch(Types.TimestampType.withZone(), values, updates::updateLong);
    assertSameSketch(Types.TimeType.get(), values, updates::updateLong);
    // DataSketches' update(long) hashes the same bytes (the equivalence Python readers rely on)
    UpdateSketch plain = ThetaSketches.newSketch();
    values.forEach(plain::update);
    UpdateSketch reference = ThetaSketches.newSketch();
    values.forEach(v -> ThetaSketches.update(reference, Types.LongType.get(), v));
    assertArrayEquals(ThetaSketches.toBlob(reference), ThetaSketches.toBlob(plain));
  }

  @Test
  public void floatingPointHashesRawBitsKeepingNegativeZeroApart() {
    assertSameSketch(Types.FloatType.get(), List.of(0.0f, -0.0f, 1.5f, Float.NaN, Float.MAX_VALUE, RANDOM.nextFloat()),
        updates::updateFloat);
    assertSameSketch(Types.DoubleType.get(), List.of(0.0, -0.0, 1.5, Double.NaN, -1e300, RANDOM.nextDouble()),
        updates::updateDouble);
  }

  @Test
  public void booleansUuidsAndDecimals() {
    assertSameSketch(Types.BooleanType.get(), List.of(true, false), updates::updateBoolean);
    assertSameSketch(Types.UUIDType.get(),
        List.of(UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"), UUID.randomUUID(), new UUID(0, 0)),
        (s, u) -> updates.updateUuid(s, u.getMostSignificantBits(), u.getLeastSignificantBits()));
    Types.DecimalType decimal = Types.DecimalType.of(18, 2);
    List<BigDecimal> decimals = List.of(new BigDecimal("0.00"), new BigDecimal("2.02"), new BigDecimal("-1.00"),
        new BigDecimal("1.27"), new BigDecimal("1.28"), new BigDecimal("-1.28"), new BigDecimal("-1.29"),
        new BigDecimal("327.67"), new BigDecimal("327.68"), new BigDecimal("9999999999999999.99"),
        new BigDecimal("-9999999999999999.99"), BigDecimal.valueOf(RANDOM.nextLong() % 1_000_000_000_000L, 2));
    assertSameSketch(decimal, decimals, (s, d) -> updates.updateUnscaled(s, d.unscaledValue().longValueExact()));
    for (long v : new long[] {0, 1, -1, 127, 128, -128, -129, 32767, 32768, Long.MAX_VALUE, Long.MIN_VALUE}) {
      assertEquals(Long.toString(v), BigInteger.valueOf(v).toByteArray().length, ThetaUpdates.minimumBytes(v));
    }
  }

  @Test
  public void stringsAndBinaryHashTheirBytesFromAnySlice() {
    List<String> values = List.of("a", "héllo", "日本", "x".repeat(100));
    assertSameSketch(Types.StringType.get(), values, (s, v) -> {
      byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
      byte[] padded = new byte[utf8.length + 10];
      System.arraycopy(utf8, 0, padded, 3, utf8.length);
      updates.updateBytes(s, ByteBuffer.wrap(padded, 3, utf8.length)); // a slice, as Spark's UTF8String gives
    });
    // DataSketches' update(String) hashes the UTF-8 bytes too
    UpdateSketch plain = ThetaSketches.newSketch();
    values.forEach(plain::update);
    UpdateSketch reference = ThetaSketches.newSketch();
    values.forEach(v -> ThetaSketches.update(reference, Types.StringType.get(), v));
    assertArrayEquals(ThetaSketches.toBlob(reference), ThetaSketches.toBlob(plain));
    assertSameSketch(Types.BinaryType.get(), List.of(ByteBuffer.wrap(new byte[] {1, 2, 3}), ByteBuffer.wrap(new byte[] {0})),
        (s, v) -> updates.updateBytes(s, v.duplicate()));
    // reused scratch arrays of each length, and fresh arrays past the limit
    List<String> lengths = List.of("ab", "cd", "x".repeat(ThetaUpdates.SCRATCH_LIMIT), "y".repeat(ThetaUpdates.SCRATCH_LIMIT + 5));
    assertSameSketch(Types.StringType.get(), lengths, (s, v) -> {
      byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
      byte[] scratch = updates.scratch(utf8.length);
      System.arraycopy(utf8, 0, scratch, 0, utf8.length);
      updates.updateBytes(s, scratch);
    });
    assertSameSketch(Types.BinaryType.get(), List.of(ByteBuffer.wrap(new byte[] {1, 2, 3})),
        (s, v) -> updates.updateBytes(s, new byte[] {1, 2, 3}));
  }

  @Test
  public void decimalSerializationMatchesTheSpecVectors() {
    Types.DecimalType decimal = Types.DecimalType.of(9, 2);
    assertArrayEquals(new byte[] {0x00, (byte) 0xCA}, bytes(Conversions.toByteBuffer(decimal, new BigDecimal("2.02"))));
    assertArrayEquals(new byte[] {(byte) 0x9C}, bytes(Conversions.toByteBuffer(decimal, new BigDecimal("-1.00"))));
    assertArrayEquals(new byte[] {0x00}, bytes(Conversions.toByteBuffer(decimal, new BigDecimal("0.00"))));
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }
}
