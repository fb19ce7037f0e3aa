package io.floe.format.manifest;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary encoding read from one decoded block held in memory, checking every declared length
 * and item count against the bytes left in the block before allocating anything. Avro's own
 * {@code BinaryDecoder} allocates a string or bytes value of the declared length first (up to 2 GiB;
 * its limits are JVM-wide system properties, AVRO-3819), so a few crafted bytes exhaust the heap.
 * An array or map block may not declare more items than bytes left: every item of a metadata schema
 * (records of ints, longs, bytes and unions) takes at least one byte.
 */
final class BlockDecoder extends Decoder {
  private final byte[] bytes;
  private int pos = 0;

  BlockDecoder(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Whether every byte of the block was read. */
  boolean isEnd() {
    return pos == bytes.length;
  }

  private int remaining() {
    return bytes.length - pos;
  }

  @Override
  public void readNull() {}

  @Override
  public boolean readBoolean() throws IOException {
    require(1, "a boolean");
    return bytes[pos++] != 0;
  }

  @Override
  public int readInt() throws IOException {
    long value = readLong();
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw new IOException("invalid int encoding at byte " + pos + " of the block: " + value);
    }
    return (int) value;
  }

  @Override
  public long readLong() throws IOException {
    long raw = 0;
    for (int shift = 0; ; shift += 7) {
      if (shift > 63) {
        throw new IOException("invalid long encoding at byte " + pos + " of the block: more than 10 bytes");
      }
      require(1, "a varint");
      int b = bytes[pos++] & 0xff;
      raw |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
  }

  @Override
  public float readFloat() throws IOException {
    require(4, "a float");
    float value = ByteBuffer.wrap(bytes, pos, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getFloat();
    pos += 4;
    return value;
  }

  @Override
  public double readDouble() throws IOException {
    require(8, "a double");
    double value = ByteBuffer.wrap(bytes, pos, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getDouble();
    pos += 8;
    return value;
  }

  @Override
  public Utf8 readString(Utf8 reuse) throws IOException {
    int length = readLength("a string");
    Utf8 out = reuse == null ? new Utf8() : reuse;
    out.setByteLength(length);
    System.arraycopy(bytes, pos, out.getBytes(), 0, length);
    pos += length;
    return out;
  }

  @Override
  public String readString() throws IOException {
    int length = readLength("a string");
    String out = new String(bytes, pos, length, StandardCharsets.UTF_8);
    pos += length;
    return out;
  }

  @Override
  public void skipString() throws IOException {
    int length = readLength("a string"); // first: `pos += readLength(..)` adds to the old pos
    pos += length;
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer reuse) throws IOException {
    int length = readLength("a bytes value");
    ByteBuffer out = reuse != null && reuse.capacity() >= length ? reuse.clear() : ByteBuffer.allocate(length);
    out.put(bytes, pos, length).flip();
    pos += length;
    return out;
  }

  /** A bytes value as an array of its own. */
  byte[] readByteArray() throws IOException {
    int length = readLength("a bytes value");
    byte[] out = Arrays.copyOfRange(bytes, pos, pos + length);
    pos += length;
    return out;
  }

  @Override
  public void skipBytes() throws IOException {
    int length = readLength("a bytes value"); // first: `pos += readLength(..)` adds to the old pos
    pos += length;
  }

  @Override
  public void readFixed(byte[] into, int start, int length) throws IOException {
    require(length, "a fixed value");
    System.arraycopy(bytes, pos, into, start, length);
    pos += length;
  }

  @Override
  public void skipFixed(int length) throws IOException {
    require(length, "a fixed value");
    pos += length;
  }

  @Override
  public int readEnum() throws IOException {
    return readInt();
  }

  @Override
  public long readArrayStart() throws IOException {
    return readItemCount();
  }

  @Override
  public long arrayNext() throws IOException {
    return readItemCount();
  }

  @Override
  public long skipArray() throws IOException {
    return skipBlocks();
  }

  @Override
  public long readMapStart() throws IOException {
    return readItemCount();
  }

  @Override
  public long mapNext() throws IOException {
    return readItemCount();
  }

  @Override
  public long skipMap() throws IOException {
    return skipBlocks();
  }

  @Override
  public int readIndex() throws IOException {
    return readInt();
  }

  /** Skips blocks that state their byte size; returns the count of the first block that does not. */
  private long skipBlocks() throws IOException {
    while (true) {
      long count = readLong();
      if (count >= 0) {
        return checkCount(count);
      }
      long size = readLong();
      if (size < 0 || size > remaining()) {
        throw new IOException("invalid block size " + size + " at byte " + pos + " of the block");
      }
      pos += (int) size;
    }
  }

  /** An array or map block's item count (a negative count is followed by the block's byte size). */
  private long readItemCount() throws IOException {
    long count = readLong();
    if (count < 0) {
      readLong();
      count = -count;
    }
    return checkCount(count);
  }

  private long checkCount(long count) throws IOException {
    if (count < 0 || count > remaining()) {
      throw new IOException("invalid item count " + count + " at byte " + pos + " of the block: only "
          + remaining() + " bytes left");
    }
    return count;
  }

  private int readLength(String what) throws IOException {
    long length = readLong();
    if (length < 0 || length > remaining()) {
      throw new IOException("invalid length " + length + " of " + what + " at byte " + pos + " of the block: only "
          + remaining() + " bytes left");
    }
    return (int) length;
  }

  private void require(int length, String what) throws EOFException {
    if (length < 0 || length > remaining()) {
      throw new EOFException("the block ends at byte " + bytes.length + ", reading " + what + " at byte " + pos);
    }
  }
}
