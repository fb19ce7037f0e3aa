package io.floe.format.types;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.Test;

/** Single-value serialization vectors (spec Appendix D, docs/format.md, 'Single-value serialization'). */
public class TestConversions {
  private static final UUID UUID_VALUE = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");

  private static ByteBuffer hex(String hex) {
    return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
  }

  private static String toHex(ByteBuffer buf) {
    byte[] bytes = new byte[buf.remaining()];
    buf.duplicate().get(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static void assertSerialized(Type type, Object value, String expectedHex) {
    ByteBuffer buf = Conversions.toByteBuffer(type, value);
    assertEquals("serialized " + type + " " + value, expectedHex, toHex(buf));
    assertEquals(ByteOrder.LITTLE_ENDIAN, buf.order());
    assertEquals(0, buf.position());
  }

  /** One sample value per primitive type, with its serialized bytes. */
  private static Map<Type, Object[]> samples() {
    Map<Type, Object[]> m = new LinkedHashMap<>();
    m.put(Types.BooleanType.get(), new Object[] {true, "01"});
    m.put(Types.IntegerType.get(), new Object[] {34, "22000000"});
    m.put(Types.LongType.get(), new Object[] {34L, "2200000000000000"});
    m.put(Types.FloatType.get(), new Object[] {1.0f, "0000803f"});
    m.put(Types.DoubleType.get(), new Object[] {1.0d, "000000000000f03f"});
    m.put(Types.DateType.get(), new Object[] {17486, "4e440000"});
    m.put(Types.TimeType.get(), new Object[] {81068000000L, "008307e012000000"});
    m.put(Types.TimestampType.withoutZone(), new Object[] {1510871468000000L, "00c3262d215e0500"});
    m.put(Types.TimestampType.withZone(), new Object[] {1510871468000001L, "01c3262d215e0500"});
    m.put(Types.StringType.get(), new Object[] {"iceberg", "69636562657267"});
    m.put(Types.UUIDType.get(), new Object[] {UUID_VALUE, "f79c3e09677c4bbda4793f349cb785e7"});
    m.put(Types.FixedType.ofLength(4), new Object[] {hex("00010203"), "00010203"});
    m.put(Types.BinaryType.get(), new Object[] {hex("00010203"), "00010203"});
    m.put(Types.DecimalType.of(4, 2), new Object[] {new BigDecimal("14.20"), "058c"});
    return m;
  }

  @Test
  public void everyPrimitiveTypeSerializesToSpecBytesAndRoundTrips() {
    for (Map.Entry<Type, Object[]> e : samples().entrySet()) {
      Type type = e.getKey();
      Object value = e.getValue()[0];
      assertSerialized(type, value, (String) e.getValue()[1]);
      Object back = Conversions.fromByteBuffer(type, Conversions.toByteBuffer(type, value));
      assertEquals("round trip " + type, value, back);
    }
  }

  @Test
  public void specVectors() {
    assertSerialized(Types.BooleanType.get(), false, "00");
    assertSerialized(Types.UUIDType.get(), UUID_VALUE, "f79c3e09677c4bbda4793f349cb785e7");
    assertSerialized(Types.DecimalType.of(9, 2), new BigDecimal("0.00"), "00");
    assertSerialized(Types.DecimalType.of(9, 2), new BigDecimal("2.02"), "00ca");
    assertSerialized(Types.DecimalType.of(9, 2), new BigDecimal("-1.00"), "9c");
    assertSerialized(Types.StringType.get(), "", "");
    assertSerialized(Types.StringType.get(), "\u00e9\ud83d\ude00", "c3a9f09f9880");
    assertSerialized(Types.IntegerType.get(), -1, "ffffffff");
    assertSerialized(Types.LongType.get(), Long.MIN_VALUE, "0000000000000080");
  }

  @Test
  public void nonZeroBooleanByteReadsAsTrue() {
    assertEquals(true, Conversions.fromByteBuffer(Types.BooleanType.get(), hex("02")));
    assertEquals(false, Conversions.fromByteBuffer(Types.BooleanType.get(), hex("00")));
  }

  @Test
  public void roundTripsOfEdgeValues() {
    Object[][] cases = {
        {Types.IntegerType.get(), Integer.MIN_VALUE}, {Types.IntegerType.get(), Integer.MAX_VALUE},
        {Types.LongType.get(), Long.MIN_VALUE}, {Types.LongType.get(), Long.MAX_VALUE},
        {Types.FloatType.get(), -0.0f}, {Types.FloatType.get(), Float.NaN},
        {Types.DoubleType.get(), -0.0d}, {Types.DoubleType.get(), Double.NEGATIVE_INFINITY},
        {Types.DateType.get(), -1}, {Types.TimestampType.withZone(), -1L},
        {Types.StringType.get(), "\ud83d\ude00 snow \u2603"},
        {Types.DecimalType.of(38, 10), new BigDecimal("-1234567890123456789012345678.0123456789")},
        {Types.DecimalType.of(38, 0), new BigDecimal("99999999999999999999999999999999999999")},
        {Types.DecimalType.of(9, 2), new BigDecimal("1.28")},
        {Types.DecimalType.of(9, 2), new BigDecimal("-1.28")},
        {Types.DecimalType.of(9, 2), new BigDecimal("-1.29")},
        {Types.BinaryType.get(), ByteBuffer.allocate(0)},
        {Types.UUIDType.get(), new UUID(-1L, Long.MIN_VALUE)},
    };
    for (Object[] c : cases) {
      Type type = (Type) c[0];
      assertEquals("round trip " + type + " " + c[1], c[1],
          Conversions.fromByteBuffer(type, Conversions.toByteBuffer(type, c[1])));
    }
  }

  @Test
  public void decimalUsesMinimumBytes() {
    Type t = Types.DecimalType.of(9, 2);
    assertEquals("7f", toHex(Conversions.toByteBuffer(t, new BigDecimal("1.27"))));
    assertEquals("0080", toHex(Conversions.toByteBuffer(t, new BigDecimal("1.28"))));
    assertEquals("80", toHex(Conversions.toByteBuffer(t, new BigDecimal("-1.28"))));
    assertEquals("ff7f", toHex(Conversions.toByteBuffer(t, new BigDecimal("-1.29"))));
  }

  @Test
  public void decimalWithSmallerScaleIsRescaledExactly() {
    Type t = Types.DecimalType.of(9, 2);
    assertEquals("78", toHex(Conversions.toByteBuffer(t, new BigDecimal("1.2"))));
    assertThrows(IllegalArgumentException.class, () -> Conversions.toByteBuffer(t, new BigDecimal("1.234")));
  }

  @Test
  public void nullValuesStayNull() {
    for (Type type : samples().keySet()) {
      assertNull(Conversions.toByteBuffer(type, null));
      assertNull(Conversions.fromByteBuffer(type, null));
    }
  }

  @Test
  public void acceptsAnyCharSequenceOnWrite() {
    assertSerialized(Types.StringType.get(), new StringBuilder("iceberg"), "69636562657267");
  }

  @Test
  public void readingDoesNotMoveTheCallersPosition() {
    for (Map.Entry<Type, Object[]> e : samples().entrySet()) {
      Type type = e.getKey();
      byte[] payload = HexFormat.of().parseHex((String) e.getValue()[1]);
      ByteBuffer buf = ByteBuffer.allocate(payload.length + 3);
      buf.position(2);
      buf.put(payload);
      buf.position(2).limit(2 + payload.length);
      buf.order(ByteOrder.BIG_ENDIAN);
      Object value = Conversions.fromByteBuffer(type, buf);
      assertEquals("read " + type + " at offset 2", e.getValue()[0], value);
      assertEquals(2, buf.position());
      assertEquals(2 + payload.length, buf.limit());
      assertEquals(ByteOrder.BIG_ENDIAN, buf.order());
    }
  }

  @Test
  public void writingDoesNotMoveTheValuesPosition() {
    ByteBuffer value = hex("0001020304");
    value.position(1);
    assertEquals("01020304", toHex(Conversions.toByteBuffer(Types.BinaryType.get(), value)));
    assertEquals(1, value.position());
  }

  @Test
  public void promotedBoundsKeepTheirOldWidth() {
    assertEquals(34L, Conversions.fromByteBuffer(Types.LongType.get(), hex("22000000")));
    assertEquals(-1L, Conversions.fromByteBuffer(Types.LongType.get(), hex("ffffffff")));
    assertEquals(1.5d, Conversions.fromByteBuffer(Types.DoubleType.get(), hex("0000c03f")));
    assertEquals(17486L * 86_400_000_000L, Conversions.fromByteBuffer(Types.TimestampType.withZone(), hex("4e440000")));
    assertEquals(-86_400_000_000L, Conversions.fromByteBuffer(Types.TimestampType.withoutZone(), hex("ffffffff")));
  }

  @Test
  public void wrongLengthsAreRejectedWithExpectedAndActual() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Conversions.fromByteBuffer(Types.IntegerType.get(), hex("010203")));
    assertTrue(e.getMessage(), e.getMessage().contains("expected 4 bytes, found 3"));
    assertThrows(IllegalArgumentException.class, () -> Conversions.fromByteBuffer(Types.LongType.get(), hex("01")));
    assertThrows(IllegalArgumentException.class, () -> Conversions.fromByteBuffer(Types.UUIDType.get(), hex("01")));
    assertThrows(IllegalArgumentException.class,
        () -> Conversions.fromByteBuffer(Types.DecimalType.of(9, 2), ByteBuffer.allocate(0)));
    assertThrows(IllegalArgumentException.class, () -> Conversions.fromByteBuffer(Types.StringType.get(), hex("ff")));
  }

  @Test
  public void nestedTypesAreNotSerializable() {
    Type struct = Types.StructType.of(Types.NestedField.optional(1, "a", Types.IntegerType.get()));
    assertThrows(IllegalArgumentException.class, () -> Conversions.toByteBuffer(struct, 1));
  }

  @Test
  public void stringsCompareByCodePointNotUtf16() {
    Type s = Types.StringType.get();
    // U+FFFF sorts before U+1F600 in code point (and UTF-8 byte) order, after it in UTF-16 order.
    assertTrue(Conversions.compare(s, "\uffff", "\ud83d\ude00") < 0);
    assertTrue(Conversions.compare(s, "a", "ab") < 0);
    assertTrue(Conversions.compare(s, "b", "ab") > 0);
    assertEquals(0, Conversions.compare(s, new StringBuilder("abc"), "abc"));
    byte[] ffff = "\uffff".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] emoji = "\ud83d\ude00".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(java.util.Arrays.compareUnsigned(ffff, emoji) < 0);
  }

  /** Strings decode the same with and without the ASCII shortcut, from any buffer; invalid UTF-8 is an error. */
  @Test
  public void stringsDecodeFromEveryKindOfBuffer() {
    Type s = Types.StringType.get();
    for (String value : new String[] {"", "tag-4242", "\u007f", "caf\u00e9", "\u4e2d", "a\ud83d\ude00b"}) {
      byte[] utf8 = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(value, Conversions.fromByteBuffer(s, ByteBuffer.wrap(utf8)));
      byte[] padded = new byte[utf8.length + 4]; // a view into a larger array, at a position
      padded[0] = (byte) 0xC3;
      padded[1] = 'x';
      padded[padded.length - 1] = (byte) 0xFF;
      System.arraycopy(utf8, 0, padded, 2, utf8.length);
      ByteBuffer view = ByteBuffer.wrap(padded, 1, utf8.length + 1).slice();
      view.position(1);
      assertEquals(value, Conversions.fromByteBuffer(s, view));
      assertEquals("the caller's position stays", 1, view.position());
      ByteBuffer direct = ByteBuffer.allocateDirect(utf8.length);
      direct.put(utf8).flip();
      assertEquals(value, Conversions.fromByteBuffer(s, direct));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Conversions.fromByteBuffer(s, hex("61c328")));
    assertTrue(e.getMessage(), e.getMessage().contains("not valid UTF-8"));
  }

  @Test
  public void binaryComparesUnsigned() {
    Type b = Types.BinaryType.get();
    assertTrue(Conversions.compare(b, hex("7f"), hex("80")) < 0);
    assertTrue(Conversions.compare(b, hex("01"), hex("0100")) < 0);
    assertEquals(0, Conversions.compare(Types.FixedType.ofLength(2), hex("ff00"), hex("ff00")));
    ByteBuffer offset = hex("0080");
    offset.position(1);
    assertEquals(0, Conversions.compare(b, offset, hex("80")));
  }

  @Test
  public void numbersAndOtherTypesCompare() {
    assertTrue(Conversions.compare(Types.FloatType.get(), -0.0f, 0.0f) < 0);
    assertTrue(Conversions.compare(Types.DoubleType.get(), -0.0d, 0.0d) < 0);
    assertTrue(Conversions.compare(Types.DoubleType.get(), -1.0d, -0.0d) < 0);
    assertTrue(Conversions.compare(Types.IntegerType.get(), -5, 3) < 0);
    assertTrue(Conversions.compare(Types.TimestampType.withZone(), 5L, 3L) > 0);
    assertTrue(Conversions.compare(Types.BooleanType.get(), false, true) < 0);
    assertEquals(0, Conversions.compare(Types.DecimalType.of(9, 2), new BigDecimal("1.0"), new BigDecimal("1.00")));
    assertTrue(Conversions.compare(Types.DecimalType.of(9, 2), new BigDecimal("-1.00"), new BigDecimal("0.01")) < 0);
    // uuids compare as their unsigned big-endian bytes
    assertTrue(Conversions.compare(Types.UUIDType.get(),
        UUID.fromString("7fffffff-ffff-ffff-ffff-ffffffffffff"), UUID_VALUE) < 0);
    assertTrue(Conversions.compare(Types.IntegerType.get(), null, 1) < 0);
    assertTrue(Conversions.compare(Types.IntegerType.get(), 1, null) > 0);
    assertEquals(0, Conversions.compare(Types.IntegerType.get(), null, null));
  }

  @Test
  public void uuidBytesAreBigEndian() {
    assertArrayEquals(HexFormat.of().parseHex("f79c3e09677c4bbda4793f349cb785e7"),
        HexFormat.of().parseHex(toHex(Conversions.toByteBuffer(Types.UUIDType.get(), UUID_VALUE))));
  }
}
