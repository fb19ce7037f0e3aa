package io.floe.format.partition;

import io.floe.format.types.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * The {@code truncate[W]} transform. Numbers round down to a multiple of W
 * ({@code v - (((v % W) + W) % W)}, decimals on the unscaled value); strings keep their first W
 * code points (a surrogate pair is never split); binary keeps its first W bytes.
 */
public final class Truncate implements Transform {
  private final int width;

  Truncate(int width) {
    if (width <= 0) {
      throw new IllegalArgumentException("Invalid truncate width: " + width + " (must be > 0)");
    }
    this.width = width;
  }

  public int width() {
    return width;
  }

  @Override
  public Object apply(Object value) {
    if (value == null) {
      return null;
    } else if (value instanceof Integer) {
      return truncateInt(width, (Integer) value);
    } else if (value instanceof Long) {
      return truncateLong(width, (Long) value);
    } else if (value instanceof BigDecimal) {
      return truncateDecimal(width, (BigDecimal) value);
    } else if (value instanceof CharSequence) {
      return truncateString(width, value.toString());
    } else if (value instanceof ByteBuffer) {
      ByteBuffer v = (ByteBuffer) value;
      byte[] bytes = new byte[Math.min(width, v.remaining())];
      v.duplicate().get(bytes);
      return ByteBuffer.wrap(bytes);
    }
    throw new IllegalArgumentException("Cannot truncate value of class " + value.getClass().getName() + ": " + value);
  }

  /** {@code v} rounded down to a multiple of {@code width} (> 0): {@code v - (((v % W) + W) % W)}. */
  public static int truncateInt(int width, int v) {
    return v - (((v % width) + width) % width);
  }

  /** {@code v} rounded down to a multiple of {@code width} (> 0): {@code v - (((v % W) + W) % W)}. */
  public static long truncateLong(int width, long v) {
    return v - (((v % width) + width) % width);
  }

  /** The unscaled value rounded down to a multiple of {@code width} (> 0); the scale is kept. */
  public static BigDecimal truncateDecimal(int width, BigDecimal v) {
    BigInteger unscaled = v.unscaledValue();
    BigInteger remainder = unscaled.mod(BigInteger.valueOf(width));
    return new BigDecimal(unscaled.subtract(remainder), v.scale());
  }

  /** The first {@code width} code points of {@code s}; a surrogate pair is never split. */
  public static String truncateString(int width, String s) {
    int end = 0;
    for (int count = 0; count < width && end < s.length(); count++) {
      end += Character.charCount(s.codePointAt(end));
    }
    return s.substring(0, end);
  }

  @Override
  public boolean canTransform(Type sourceType) {
    switch (sourceType.typeId()) {
      case INTEGER:
      case LONG:
      case DECIMAL:
      case STRING:
      case BINARY:
        return true;
      default:
        return false;
    }
  }

  @Override
  public Type resultType(Type sourceType) {
    return sourceType;
  }

  @Override
  public String toHumanString(Type sourceType, Object partitionValue) {
    return HumanStrings.of(sourceType, partitionValue);
  }

  @Override
  public boolean preservesOrder() {
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Truncate && ((Truncate) o).width == width;
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "truncate[" + width + "]";
  }
}
