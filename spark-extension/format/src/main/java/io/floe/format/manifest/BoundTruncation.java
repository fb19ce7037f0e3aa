package io.floe.format.manifest;

import java.util.Arrays;

/**
 * Shortens string and binary column bounds. A lower bound is a plain prefix; an upper bound that
 * was cut must still be at least every value, so its last code point (or byte) is incremented,
 * dropping trailing ones that cannot be. {@code null} means no upper bound can be written.
 */
public final class BoundTruncation {
  private static final int MAX_BYTE = 0xFF;

  private BoundTruncation() {}

  public static String lowerString(String value, int length) {
    if (value.codePointCount(0, value.length()) <= length) {
      return value;
    }
    return value.substring(0, value.offsetByCodePoints(0, length));
  }

  public static String upperString(String value, int length) {
    if (value.codePointCount(0, value.length()) <= length) {
      return value;
    }
    int[] codePoints = value.codePoints().limit(length).toArray();
    for (int i = codePoints.length - 1; i >= 0; i--) {
      int next = codePoints[i] + 1;
      if (next == Character.MIN_SURROGATE) {
        next = Character.MAX_SURROGATE + 1; // surrogates are not code points of a valid string
      }
      if (next <= Character.MAX_CODE_POINT) {
        codePoints[i] = next;
        return new String(codePoints, 0, i + 1);
      }
    }
    return null;
  }

  public static byte[] lowerBinary(byte[] value, int length) {
    return value.length <= length ? value : Arrays.copyOf(value, length);
  }

  public static byte[] upperBinary(byte[] value, int length) {
    if (value.length <= length) {
      return value;
    }
    for (int i = length - 1; i >= 0; i--) {
      if ((value[i] & MAX_BYTE) != MAX_BYTE) {
        byte[] bound = Arrays.copyOf(value, i + 1);
        bound[i] = (byte) (bound[i] + 1);
        return bound;
      }
    }
    return null;
  }
}
