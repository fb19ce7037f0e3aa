package io.floe.format.expr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.Test;

public class TestComparators {

  private static int sign(int cmp) {
    return Integer.signum(cmp);
  }

  @Test
  public void numbersCompareAcrossWidths() {
    assertEquals(0, Comparators.compare(5, 5L));
    assertEquals(-1, sign(Comparators.compare(1.5f, 1.6d)));
    assertEquals(0, Comparators.compare(0.5f, 0.5d));
    assertEquals(1, sign(Comparators.compare(Long.MAX_VALUE, 9.2233720368547748E18d - 4096)));
    assertEquals(0, Comparators.compare(new BigDecimal("1.50"), new BigDecimal("1.5")));
    assertEquals(-1, sign(Comparators.compare(3, new BigDecimal("3.01"))));
  }

  @Test
  public void floatingPointFollowsSpark() {
    assertEquals(0, Comparators.compare(-0.0, 0.0));
    assertEquals(0, Comparators.compare(Double.NaN, Float.NaN));
    assertEquals(1, sign(Comparators.compare(Double.NaN, Double.POSITIVE_INFINITY)));
    assertEquals(1, sign(Comparators.compare(Double.NaN, Long.MAX_VALUE)));
    assertEquals(-1, sign(Comparators.compare(Double.NEGATIVE_INFINITY, Long.MIN_VALUE)));
  }

  @Test
  public void stringsCompareByCodePointLikeUtf8Bytes() {
    String[] ordered = {"", "a", "ab", "b", "\u00e9", "\uFFFD", "\uD83D\uDE00", "\uD83D\uDE01"};
    for (int i = 0; i < ordered.length; i++) {
      for (int j = 0; j < ordered.length; j++) {
        int expected = Integer.signum(Integer.compare(i, j));
        assertEquals(ordered[i] + " vs " + ordered[j], expected, sign(Comparators.compare(ordered[i], ordered[j])));
        ByteBuffer a = ByteBuffer.wrap(ordered[i].getBytes(StandardCharsets.UTF_8));
        ByteBuffer b = ByteBuffer.wrap(ordered[j].getBytes(StandardCharsets.UTF_8));
        assertEquals(expected, sign(Comparators.compare(a, b)));
      }
    }
  }

  @Test
  public void bytesAndUuidsAreUnsigned() {
    ByteBuffer low = ByteBuffer.wrap(new byte[] {0x7F});
    ByteBuffer high = ByteBuffer.wrap(new byte[] {(byte) 0x80});
    assertTrue(Comparators.compare(low, high) < 0);
    assertEquals(0, high.position());
    UUID small = UUID.fromString("7fffffff-ffff-ffff-ffff-ffffffffffff");
    UUID big = UUID.fromString("80000000-0000-0000-0000-000000000000");
    assertTrue(Comparators.compare(small, big) < 0);
    assertTrue(Comparators.compare(false, true) < 0);
  }

  @Test
  public void mismatchedValuesFail() {
    assertThrows(IllegalArgumentException.class, () -> Comparators.compare("1", 1));
  }
}
