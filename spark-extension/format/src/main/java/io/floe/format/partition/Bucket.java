package io.floe.format.partition;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The {@code bucket[N]} transform: {@code (murmur3_x86_32(bytes(v), seed 0) & Integer.MAX_VALUE) % N}.
 *
 * <p>Bytes hashed per value (spec Appendix B): int, long, date, time and timestamp values as an
 * 8-byte little-endian long (ints widened first, so int to long promotion keeps buckets); decimals
 * as the minimum big-endian two's-complement bytes of the unscaled value; strings as UTF-8; uuids
 * as 16 big-endian bytes; fixed and binary as their bytes.
 */
public final class Bucket implements Transform {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private final int numBuckets;

  Bucket(int numBuckets) {
    if (numBuckets <= 0) {
      throw new IllegalArgumentException("Invalid number of buckets: " + numBuckets + " (must be > 0)");
    }
    this.numBuckets = numBuckets;
  }

  public int numBuckets() {
    return numBuckets;
  }

  @Override
  public Object apply(Object value) {
    if (value == null) {
      return null;
    }
    return bucketOf(hash(value), numBuckets);
  }

  /** The bucket of a 32-bit hash: {@code (hash & Integer.MAX_VALUE) % numBuckets}. */
  public static int bucketOf(int hash, int numBuckets) {
    return (hash & Integer.MAX_VALUE) % numBuckets;
  }

  @Override
  public boolean canTransform(Type sourceType) {
    switch (sourceType.typeId()) {
      case INTEGER:
      case LONG:
      case DECIMAL:
      case DATE:
      case TIME:
      case TIMESTAMP:
      case STRING:
      case UUID:
      case FIXED:
      case BINARY:
        return true;
      default:
        return false;
    }
  }

  @Override
  public Type resultType(Type sourceType) {
    return Types.IntegerType.get();
  }

  /**
   * The spec's 32-bit hash of a value in Floe's Java representation. Booleans, floats and doubles
   * cannot be bucketed but have a defined hash: booleans as the long 0/1, floats and doubles as the
   * bits of the double (NaN canonical, -0.0 as 0.0).
   */
  public static int hash(Object value) {
    if (value instanceof Integer) {
      return hashLong((Integer) value);
    } else if (value instanceof Long) {
      return hashLong((Long) value);
    } else if (value instanceof CharSequence) {
      return hashBytes(value.toString().getBytes(StandardCharsets.UTF_8));
    } else if (value instanceof BigDecimal) {
      return hashDecimal((BigDecimal) value);
    } else if (value instanceof UUID) {
      UUID uuid = (UUID) value;
      ByteBuffer bytes = ByteBuffer.allocate(16);
      bytes.putLong(0, uuid.getMostSignificantBits()).putLong(8, uuid.getLeastSignificantBits());
      return murmur3(bytes);
    } else if (value instanceof ByteBuffer) {
      return murmur3((ByteBuffer) value);
    } else if (value instanceof byte[]) {
      return hashBytes((byte[]) value);
    } else if (value instanceof Boolean) {
      return hashLong((Boolean) value ? 1L : 0L);
    } else if (value instanceof Float || value instanceof Double) {
      double d = ((Number) value).doubleValue();
      return hashLong(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
    }
    throw new IllegalArgumentException("Cannot bucket value of class " + value.getClass().getName() + ": " + value);
  }

  /**
   * murmur3_x86_32 with seed 0 of a long's 8 little-endian bytes: the hash of int, long, date, time
   * and timestamp (micros) values.
   */
  public static int hashLong(long value) {
    int h = mixH(0, mixK((int) value));
    h = mixH(h, mixK((int) (value >>> 32)));
    return fmix(h ^ 8);
  }

  /** murmur3_x86_32 with seed 0 of bytes (UTF-8 of a string, unscaled bytes of a decimal, binary). */
  public static int hashBytes(byte[] bytes) {
    return murmur3(ByteBuffer.wrap(bytes));
  }

  /** The hash of a decimal: its unscaled value's minimal big-endian two's-complement bytes. */
  public static int hashDecimal(BigDecimal value) {
    return hashBytes(value.unscaledValue().toByteArray());
  }

  /** murmur3_x86_32 with seed 0 of the buffer's remaining bytes; the buffer's position is unchanged. */
  static int murmur3(ByteBuffer data) {
    int start = data.position();
    int length = data.remaining();
    int blocks = length / 4;
    int h = 0;
    for (int i = 0; i < blocks; i++) {
      int at = start + 4 * i;
      int k = (data.get(at) & 0xFF) | (data.get(at + 1) & 0xFF) << 8
          | (data.get(at + 2) & 0xFF) << 16 | (data.get(at + 3) & 0xFF) << 24;
      h = mixH(h, mixK(k));
    }
    int tail = start + 4 * blocks;
    int remaining = length & 3;
    if (remaining > 0) {
      int k = 0;
      for (int i = remaining - 1; i >= 0; i--) {
        k = (k << 8) | (data.get(tail + i) & 0xFF);
      }
      h ^= mixK(k);
    }
    return fmix(h ^ length);
  }

  private static int mixK(int k) {
    return Integer.rotateLeft(k * C1, 15) * C2;
  }

  private static int mixH(int h, int k) {
    return Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64;
  }

  private static int fmix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bucket && ((Bucket) o).numBuckets == numBuckets;
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "bucket[" + numBuckets + "]";
  }
}
