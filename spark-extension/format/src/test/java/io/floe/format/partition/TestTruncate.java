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
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.Test;

/** The truncate transform against the vectors of docs/format.md, 'Truncate'. */
public class TestTruncate {

  private static ByteBuffer hex(String hex) {
    return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
  }

  @Test
  public void intsRoundDownToMultiplesOfWidth() {
    Transform t = Transforms.truncate(10);
    int[][] cases = {{0, 0}, {1, 0}, {5, 0}, {9, 0}, {10, 10}, {11, 10}, {-1, -10}, {-5, -10}, {-10, -10}, {-11, -20}};
    for (int[] c : cases) {
      assertEquals("int " + c[0], c[1], t.apply(c[0]));
      assertEquals("long " + c[0], (long) c[1], t.apply((long) c[0]));
    }
  }

  @Test
  public void decimalsTruncateTheUnscaledValueAndKeepTheScale() {
    Transform t = Transforms.truncate(10);
    String[][] cases = {{"12.34", "12.30"}, {"12.30", "12.30"}, {"12.29", "12.20"}, {"0.05", "0.00"}, {"-0.05", "-0.10"}};
    for (String[] c : cases) {
      BigDecimal out = (BigDecimal) t.apply(new BigDecimal(c[0]));
      assertEquals("decimal " + c[0], new BigDecimal(c[1]), out);
      assertEquals(2, out.scale());
    }
    assertEquals(new BigDecimal("10.50"), Transforms.truncate(50).apply(new BigDecimal("10.65")));
  }

  @Test
  public void stringsKeepTheFirstCodePoints() {
    assertEquals("abcde", Transforms.truncate(5).apply("abcdefg"));
    assertEquals("abc", Transforms.truncate(5).apply("abc"));
    assertEquals("ice", Transforms.truncate(3).apply("iceberg"));
    assertEquals("\ud83d\ude00a", Transforms.truncate(2).apply("\ud83d\ude00abc"));
    assertEquals("\ud83d\ude00", Transforms.truncate(1).apply("\ud83d\ude00\ud83d\ude01"));
    assertEquals("ice", Transforms.truncate(3).apply(new StringBuilder("iceberg")));
    assertEquals("", Transforms.truncate(3).apply(""));
  }

  @Test
  public void binaryKeepsTheFirstBytes() {
    ByteBuffer abcdefg = ByteBuffer.wrap("abcdefg".getBytes(StandardCharsets.UTF_8));
    assertEquals(ByteBuffer.wrap("abcd".getBytes(StandardCharsets.UTF_8)), Transforms.truncate(4).apply(abcdefg));
    assertEquals(0, abcdefg.position());
    assertEquals(7, abcdefg.remaining());
    assertEquals(hex("010203"), Transforms.truncate(3).apply(hex("0102030405")));
    assertEquals(hex("0102"), Transforms.truncate(3).apply(hex("0102")));
  }

  @Test
  public void nullStaysNull() {
    assertNull(Transforms.truncate(3).apply(null));
  }

  @Test
  public void invalidWidths() {
    IllegalArgumentException neg = assertThrows(IllegalArgumentException.class, () -> Transforms.truncate(-1));
    assertEquals("Invalid truncate width: -1 (must be > 0)", neg.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Transforms.truncate(0));
    assertThrows(IllegalArgumentException.class, () -> Transforms.fromString("truncate[0]"));
  }

  @Test
  public void sourceAndResultTypes() {
    Transform t = Transforms.truncate(4);
    Type[] ok = {Types.IntegerType.get(), Types.LongType.get(), Types.DecimalType.of(9, 2),
        Types.StringType.get(), Types.BinaryType.get()};
    for (Type type : ok) {
      assertTrue(type.toString(), t.canTransform(type));
      assertEquals(type, t.resultType(type));
    }
    Type[] notOk = {Types.BooleanType.get(), Types.FloatType.get(), Types.DoubleType.get(), Types.DateType.get(),
        Types.TimestampType.withZone(), Types.UUIDType.get(), Types.FixedType.ofLength(4)};
    for (Type type : notOk) {
      assertFalse(type.toString(), t.canTransform(type));
    }
  }

  @Test
  public void nameEqualityOrderAndHumanString() {
    Transform t = Transforms.truncate(10);
    assertEquals("truncate[10]", t.toString());
    assertEquals(10, ((Truncate) t).width());
    assertEquals(t, Transforms.fromString("truncate[10]"));
    assertEquals("truncate[10]".hashCode(), t.hashCode());
    assertNotEquals(t, Transforms.truncate(11));
    assertTrue(t.preservesOrder());
    assertEquals("1.00", t.toHumanString(Types.DecimalType.of(9, 2), new BigDecimal("1.00")));
    assertEquals("AQID", t.toHumanString(Types.BinaryType.get(), hex("010203")));
    assertEquals("null", t.toHumanString(Types.StringType.get(), null));
  }
}
