package io.floe.format.stats;

import java.nio.ByteBuffer;
import org.apache.datasketches.theta.UpdateSketch;

/**
 * Allocation-free theta updates that hash exactly the single-value serialization of a value, for
 * engines that read values unboxed. DataSketches hashes {@code int[]} and {@code long[]} as their
 * little-endian bytes, which is how 4- and 8-byte values serialize; decimals are written
 * big-endian in their minimum number of bytes into per-length scratch arrays. One instance per
 * column and thread (the scratch arrays are reused).
 *
 * <pre>
 *   int, date          update(int[]{v})                       = 4 bytes LE
 *   long, time, ts     update(long v)                         = 8 bytes LE
 *   float / double     raw IEEE bits as int[] / long[]        (no NaN or -0.0 canonicalisation)
 *   boolean            one byte 0x00 / 0x01
 *   uuid               long[]{reverse(msb), reverse(lsb)}     = 16 bytes BE
 *   decimal            unscaled two's complement BE, minimum bytes
 *   string, binary     the bytes (empty ones are ignored by the sketch, as in Iceberg)
 * </pre>
 */
public final class ThetaUpdates {
  /** Values up to this many bytes are copied into reused arrays; longer ones get a new array. */
  public static final int SCRATCH_LIMIT = 256;

  private final int[] oneInt = new int[1];
  private final long[] twoLongs = new long[2];
  private final byte[][] decimalBytes = new byte[9][];
  private final byte[] oneByte = new byte[1];
  private final byte[][] scratch = new byte[SCRATCH_LIMIT + 1][];

  public ThetaUpdates() {
    for (int i = 1; i < decimalBytes.length; i++) {
      decimalBytes[i] = new byte[i];
    }
  }

  public void updateInt(UpdateSketch sketch, int value) {
    oneInt[0] = value;
    sketch.update(oneInt);
  }

  public void updateLong(UpdateSketch sketch, long value) {
    sketch.update(value); // hashes the 8 bytes little-endian, like long[]{value}
  }

  public void updateFloat(UpdateSketch sketch, float value) {
    updateInt(sketch, Float.floatToRawIntBits(value));
  }

  public void updateDouble(UpdateSketch sketch, double value) {
    updateLong(sketch, Double.doubleToRawLongBits(value));
  }

  public void updateBoolean(UpdateSketch sketch, boolean value) {
    oneByte[0] = (byte) (value ? 1 : 0);
    sketch.update(oneByte);
  }

  public void updateUuid(UpdateSketch sketch, long mostSignificant, long leastSignificant) {
    twoLongs[0] = Long.reverseBytes(mostSignificant);
    twoLongs[1] = Long.reverseBytes(leastSignificant);
    sketch.update(twoLongs);
  }

  /** A decimal given by its unscaled value (precision up to 18). */
  public void updateUnscaled(UpdateSketch sketch, long unscaled) {
    int length = minimumBytes(unscaled);
    byte[] out = decimalBytes[length];
    for (int i = length - 1; i >= 0; i--) {
      out[i] = (byte) unscaled;
      unscaled >>= 8;
    }
    sketch.update(out);
  }

  /**
   * The remaining bytes of {@code bytes} (UTF-8 text, binary), without moving its position. Slower
   * than {@link #updateBytes(UpdateSketch, byte[])}: DataSketches wraps the buffer for each call.
   */
  public void updateBytes(UpdateSketch sketch, ByteBuffer bytes) {
    if (bytes.hasRemaining()) {
      sketch.update(bytes);
    }
  }

  /** All of {@code bytes} (UTF-8 text, binary); empty values are ignored. */
  public void updateBytes(UpdateSketch sketch, byte[] bytes) {
    if (bytes.length > 0) {
      sketch.update(bytes);
    }
  }

  /**
   * An array of exactly {@code length} bytes for the caller to fill and pass to
   * {@link #updateBytes(UpdateSketch, byte[])}: reused up to {@link #SCRATCH_LIMIT} bytes.
   */
  public byte[] scratch(int length) {
    if (length > SCRATCH_LIMIT) {
      return new byte[length];
    }
    byte[] out = scratch[length];
    if (out == null) {
      out = new byte[length];
      scratch[length] = out;
    }
    return out;
  }

  /** Bytes of BigInteger.valueOf(v).toByteArray(): enough for the value and its sign bit. */
  static int minimumBytes(long value) {
    int significantBits = 64 - Long.numberOfLeadingZeros(value < 0 ? ~value : value);
    return significantBits / 8 + 1;
  }
}
