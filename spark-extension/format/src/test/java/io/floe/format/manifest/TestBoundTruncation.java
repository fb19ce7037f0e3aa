package io.floe.format.manifest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

public class TestBoundTruncation {
  @Test
  public void shortValuesAreKept() {
    assertEquals("abc", BoundTruncation.lowerString("abc", 3));
    assertEquals("abc", BoundTruncation.upperString("abc", 16));
    assertArrayEquals(new byte[] {1, 2}, BoundTruncation.upperBinary(new byte[] {1, 2}, 2));
  }

  @Test
  public void lowerBoundsArePrefixesCountedInCodePoints() {
    assertEquals("ab", BoundTruncation.lowerString("abcdef", 2));
    // U+1F600 is two chars but one code point: a prefix never splits it
    assertEquals("a\uD83D\uDE00", BoundTruncation.lowerString("a\uD83D\uDE00bc", 2));
    assertArrayEquals(new byte[] {1, 2}, BoundTruncation.lowerBinary(new byte[] {1, 2, 3}, 2));
  }

  @Test
  public void upperBoundsIncrementTheLastKeptCodePoint() {
    assertEquals("ac", BoundTruncation.upperString("abcdef", 2));
    // the code point after U+D7FF is U+E000: surrogates are skipped
    assertEquals("a\uE000", BoundTruncation.upperString("a\uD7FFzz", 2));
    // U+10FFFF cannot be incremented: the one before it is, and the rest is dropped
    String max = new String(Character.toChars(Character.MAX_CODE_POINT));
    assertEquals("b", BoundTruncation.upperString("a" + max + "zz", 2));
    assertNull(BoundTruncation.upperString(max + max + "z", 2));
  }

  @Test
  public void binaryUpperBoundsIncrementTheLastByteBelow0xFF() {
    assertArrayEquals(new byte[] {1, 3}, BoundTruncation.upperBinary(new byte[] {1, 2, 3}, 2));
    assertArrayEquals(new byte[] {2}, BoundTruncation.upperBinary(new byte[] {1, (byte) 0xFF, 3}, 2));
    assertNull(BoundTruncation.upperBinary(new byte[] {(byte) 0xFF, (byte) 0xFF, 0}, 2));
  }

  @Test
  public void upperBoundsAreAtLeastEveryValueWithThePrefix() {
    String[] values = {"zebra", "a\uD83D\uDE00x", "\uFFFF\uFFFFa", "mn\uD7FFq"};
    for (String v : values) {
      String upper = BoundTruncation.upperString(v, 2);
      if (upper != null) {
        assertEquals(1, Integer.signum(compareCodePoints(upper, v)));
      }
    }
  }

  private static int compareCodePoints(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] != y[i]) {
        return Integer.compare(x[i], y[i]);
      }
    }
    return Integer.compare(x.length, y.length);
  }
}
