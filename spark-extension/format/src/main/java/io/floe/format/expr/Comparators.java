package io.floe.format.expr;

import io.floe.format.types.Type;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.UUID;

/**
 * Orders values in Floe's Java value representation the way Spark SQL compares them:
 * numbers numerically across widths (a float bound against a double literal, an int bound against a
 * long literal), floating point with NaN above every other value and equal to itself and
 * {@code -0.0 == 0.0}; strings by Unicode code point (the same as unsigned UTF-8 byte order);
 * binary, fixed and byte buffers unsigned lexicographically; UUIDs as 16 unsigned big-endian bytes;
 * false before true.
 */
public final class Comparators {
  private Comparators() {}

  private static final Comparator<Object> NATURAL = Comparators::compare;

  /** The comparator for values of a primitive type (all types share one value-driven order). */
  public static Comparator<Object> forType(Type type) {
    if (!type.isPrimitiveType()) {
      throw new IllegalArgumentException("Cannot compare values of non-primitive type " + type);
    }
    return NATURAL;
  }

  public static int compare(Object left, Object right) {
    if (left instanceof Number && right instanceof Number) {
      return compareNumbers((Number) left, (Number) right);
    }
    if (left instanceof CharSequence && right instanceof CharSequence) {
      return compareStrings((CharSequence) left, (CharSequence) right);
    }
    if (left instanceof ByteBuffer && right instanceof ByteBuffer) {
      return compareBytes((ByteBuffer) left, (ByteBuffer) right);
    }
    if (left instanceof Boolean && right instanceof Boolean) {
      return Boolean.compare((Boolean) left, (Boolean) right);
    }
    if (left instanceof UUID && right instanceof UUID) {
      UUID l = (UUID) left;
      UUID r = (UUID) right;
      int cmp = Long.compareUnsigned(l.getMostSignificantBits(), r.getMostSignificantBits());
      return cmp != 0 ? cmp : Long.compareUnsigned(l.getLeastSignificantBits(), r.getLeastSignificantBits());
    }
    throw new IllegalArgumentException("Cannot compare " + describe(left) + " with " + describe(right));
  }

  private static String describe(Object value) {
    return value == null ? "null" : value + " (" + value.getClass().getName() + ")";
  }

  static boolean isFloating(Number n) {
    return n instanceof Double || n instanceof Float;
  }

  private static int compareNumbers(Number left, Number right) {
    boolean leftFloat = isFloating(left);
    boolean rightFloat = isFloating(right);
    if (!leftFloat && !rightFloat && !(left instanceof BigDecimal) && !(right instanceof BigDecimal)) {
      return Long.compare(left.longValue(), right.longValue());
    }
    if (leftFloat && rightFloat) {
      return compareDoubles(left.doubleValue(), right.doubleValue());
    }
    if (leftFloat || rightFloat) {
      double d = leftFloat ? left.doubleValue() : right.doubleValue();
      Number other = leftFloat ? right : left;
      int cmp;
      if (Double.isNaN(d) || d == Double.POSITIVE_INFINITY) {
        cmp = 1;
      } else if (d == Double.NEGATIVE_INFINITY) {
        cmp = -1;
      } else {
        cmp = new BigDecimal(d).compareTo(toBigDecimal(other));
      }
      return leftFloat ? cmp : -cmp;
    }
    return toBigDecimal(left).compareTo(toBigDecimal(right));
  }

  private static BigDecimal toBigDecimal(Number n) {
    return n instanceof BigDecimal ? (BigDecimal) n : BigDecimal.valueOf(n.longValue());
  }

  /** Spark's double order: NaN is the largest value and equals NaN; -0.0 equals 0.0. */
  static int compareDoubles(double left, double right) {
    if (left < right) {
      return -1;
    } else if (left > right) {
      return 1;
    } else if (left == right) {
      return 0;
    }
    return Boolean.compare(Double.isNaN(left), Double.isNaN(right));
  }

  /** Code point order, computed on UTF-16 units by moving surrogates above the rest of the BMP. */
  static int compareStrings(CharSequence left, CharSequence right) {
    int len = Math.min(left.length(), right.length());
    for (int i = 0; i < len; i++) {
      char l = left.charAt(i);
      char r = right.charAt(i);
      if (l != r) {
        return Integer.compare(codePointRank(l), codePointRank(r));
      }
    }
    return Integer.compare(left.length(), right.length());
  }

  private static int codePointRank(char c) {
    if (c >= 0xE000) {
      return c - 0x800;
    } else if (c >= 0xD800) {
      return c + 0x2000;
    }
    return c;
  }

  /** Unsigned lexicographic order over the remaining bytes; buffer positions are not changed. */
  static int compareBytes(ByteBuffer left, ByteBuffer right) {
    int lpos = left.position();
    int rpos = right.position();
    int len = Math.min(left.remaining(), right.remaining());
    for (int i = 0; i < len; i++) {
      int cmp = Integer.compare(left.get(lpos + i) & 0xFF, right.get(rpos + i) & 0xFF);
      if (cmp != 0) {
        return cmp;
      }
    }
    return Integer.compare(left.remaining(), right.remaining());
  }

  /** True when {@code value}'s remaining bytes start with {@code prefix}'s remaining bytes. */
  static boolean startsWith(ByteBuffer value, ByteBuffer prefix) {
    if (value.remaining() < prefix.remaining()) {
      return false;
    }
    for (int i = 0; i < prefix.remaining(); i++) {
      if (value.get(value.position() + i) != prefix.get(prefix.position() + i)) {
        return false;
      }
    }
    return true;
  }
}
