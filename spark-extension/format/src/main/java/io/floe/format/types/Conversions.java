package io.floe.format.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Single-value binary serialization (spec Appendix D), used for column bounds and partition
 * summaries.
 *
 * <pre>
 *   boolean            1 byte, 0x00 false, 0x01 true (any non-zero byte reads as true)
 *   int, date          4 bytes little-endian (date = days since 1970-01-01)
 *   long, time,        8 bytes little-endian (micros)
 *   timestamp(tz)
 *   float, double      4 / 8 bytes little-endian IEEE 754
 *   string             UTF-8 bytes, no length
 *   uuid               16 bytes big-endian (most significant long first)
 *   fixed, binary      the bytes, no length
 *   decimal(P, S)      unscaled value, two's complement big-endian, minimum number of bytes
 * </pre>
 *
 * <p>Bounds written for a column before a type promotion keep the old width: a 4-byte value is
 * read as an int for a long column, a float for a double column and a date for a timestamp column.
 */
public final class Conversions {
  private static final long MICROS_PER_DAY = 86_400_000_000L;
  private static final int UUID_BYTES = 16;

  private Conversions() {}

  /**
   * Serializes a value of a primitive type; null stays null. The returned buffer is ordered
   * little-endian and positioned at 0.
   */
  public static ByteBuffer toByteBuffer(Type type, Object value) {
    if (value == null) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return wrap(new byte[] {(byte) (((Boolean) value) ? 1 : 0)});
      case INTEGER:
      case DATE:
        return allocate(4).putInt(0, (Integer) value);
      case LONG:
      case TIME:
      case TIMESTAMP:
        return allocate(8).putLong(0, (Long) value);
      case FLOAT:
        return allocate(4).putFloat(0, (Float) value);
      case DOUBLE:
        return allocate(8).putDouble(0, (Double) value);
      case STRING:
        return wrap(((CharSequence) value).toString().getBytes(StandardCharsets.UTF_8));
      case UUID:
        return uuidToBuffer((UUID) value);
      case FIXED:
      case BINARY:
        return wrap(copyRemaining((ByteBuffer) value));
      case DECIMAL:
        return wrap(unscaled((Types.DecimalType) type, (BigDecimal) value).toByteArray());
      default:
        throw new IllegalArgumentException("Unsupported type for single-value serialization: " + type);
    }
  }

  /**
   * Reads a value of a primitive type from the buffer's remaining bytes without moving the
   * caller's position; null stays null.
   */
  public static Object fromByteBuffer(Type type, ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer buf = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int pos = buf.position();
    int length = buf.remaining();
    switch (type.typeId()) {
      case BOOLEAN:
        checkLength(type, length, 1);
        return buf.get(pos) != 0;
      case INTEGER:
      case DATE:
        checkLength(type, length, 4);
        return buf.getInt(pos);
      case LONG:
      case TIME:
        checkLength(type, length, 4, 8);
        return length == 4 ? (long) buf.getInt(pos) : buf.getLong(pos);
      case TIMESTAMP:
        checkLength(type, length, 4, 8);
        return length == 4 ? buf.getInt(pos) * MICROS_PER_DAY : buf.getLong(pos);
      case FLOAT:
        checkLength(type, length, 4);
        return buf.getFloat(pos);
      case DOUBLE:
        checkLength(type, length, 4, 8);
        return length == 4 ? (double) buf.getFloat(pos) : buf.getDouble(pos);
      case STRING:
        return decodeUtf8(buf);
      case UUID:
        checkLength(type, length, UUID_BYTES);
        buf.order(ByteOrder.BIG_ENDIAN);
        return new UUID(buf.getLong(pos), buf.getLong(pos + 8));
      case FIXED:
      case BINARY:
        return ByteBuffer.wrap(copyRemaining(buf));
      case DECIMAL:
        if (length < 1) {
          throw new IllegalArgumentException("Invalid serialized " + type + ": expected at least 1 byte, found 0");
        }
        int scale = ((Types.DecimalType) type).scale();
        return new BigDecimal(new BigInteger(copyRemaining(buf)), scale);
      default:
        throw new IllegalArgumentException("Unsupported type for single-value serialization: " + type);
    }
  }

  /**
   * Compares two values of a primitive type; null sorts first. Strings compare by code point (the
   * same order as unsigned UTF-8 bytes); uuid, fixed and binary compare as unsigned bytes; floats
   * put -0.0 before 0.0 (callers exclude NaN).
   */
  public static int compare(Type type, Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return Boolean.compare((Boolean) a, (Boolean) b);
      case INTEGER:
      case DATE:
        return Integer.compare((Integer) a, (Integer) b);
      case LONG:
      case TIME:
      case TIMESTAMP:
        return Long.compare((Long) a, (Long) b);
      case FLOAT:
        return Float.compare((Float) a, (Float) b);
      case DOUBLE:
        return Double.compare((Double) a, (Double) b);
      case STRING:
        return compareCodePoints((CharSequence) a, (CharSequence) b);
      case UUID:
        return compareUuids((UUID) a, (UUID) b);
      case FIXED:
      case BINARY:
        return compareUnsigned((ByteBuffer) a, (ByteBuffer) b);
      case DECIMAL:
        return ((BigDecimal) a).compareTo((BigDecimal) b);
      default:
        throw new IllegalArgumentException("Cannot compare values of type: " + type);
    }
  }

  private static BigInteger unscaled(Types.DecimalType type, BigDecimal value) {
    if (value.scale() == type.scale()) {
      return value.unscaledValue();
    }
    try {
      return value.setScale(type.scale(), RoundingMode.UNNECESSARY).unscaledValue();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "Cannot serialize " + value + " as " + type + ": scale " + value.scale() + " would lose digits", e);
    }
  }

  private static ByteBuffer uuidToBuffer(UUID uuid) {
    ByteBuffer buf = ByteBuffer.allocate(UUID_BYTES).order(ByteOrder.BIG_ENDIAN);
    buf.putLong(0, uuid.getMostSignificantBits());
    buf.putLong(8, uuid.getLeastSignificantBits());
    return buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The string of UTF-8 {@code buf}'s remaining bytes; ASCII (as most keys and bounds are) without a decoder. */
  private static String decodeUtf8(ByteBuffer buf) {
    if (buf.hasArray()) {
      byte[] array = buf.array();
      int from = buf.arrayOffset() + buf.position();
      int to = from + buf.remaining();
      int i = from;
      while (i < to && array[i] >= 0) {
        i++;
      }
      if (i == to) { // every byte below 0x80: one char each, the same string a decoder makes
        return new String(array, from, to - from, StandardCharsets.US_ASCII);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(buf).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("Invalid serialized string: bytes are not valid UTF-8", e);
    }
  }

  private static void checkLength(Type type, int actual, int expected) {
    if (actual != expected) {
      throw new IllegalArgumentException(
          "Invalid serialized " + type + ": expected " + expected + " bytes, found " + actual);
    }
  }

  private static void checkLength(Type type, int actual, int narrow, int wide) {
    if (actual != narrow && actual != wide) {
      throw new IllegalArgumentException(
          "Invalid serialized " + type + ": expected " + narrow + " or " + wide + " bytes, found " + actual);
    }
  }

  private static int compareCodePoints(CharSequence a, CharSequence b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = Character.codePointAt(a, i);
      int cb = Character.codePointAt(b, j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }

  private static int compareUuids(UUID a, UUID b) {
    int cmp = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
    return cmp != 0 ? cmp : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
  }

  private static int compareUnsigned(ByteBuffer a, ByteBuffer b) {
    int na = a.remaining();
    int nb = b.remaining();
    for (int k = 0; k < Math.min(na, nb); k++) {
      int cmp = Integer.compare(a.get(a.position() + k) & 0xFF, b.get(b.position() + k) & 0xFF);
      if (cmp != 0) {
        return cmp;
      }
    }
    return Integer.compare(na, nb);
  }

  private static byte[] copyRemaining(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  private static ByteBuffer allocate(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static ByteBuffer wrap(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
