package io.floe.format.index;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reading and writing the primitives of the index blobs: little-endian fixed-width integers,
 * unsigned LEB128 varints and length-prefixed byte strings. Reads check every length against what
 * is left and fail with a {@link Malformed} saying where, what was expected and what was found.
 */
final class BlobBytes {
  private BlobBytes() {}

  /** A blob's bytes do not follow its layout; the segment reader adds the table, index and file. */
  static final class Malformed extends RuntimeException {
    final String where;
    final String expected;
    final String found;

    Malformed(String where, String expected, String found) {
      super(where + ": expected " + expected + ", found " + found);
      this.where = where;
      this.expected = expected;
      this.found = found;
    }
  }

  /** Appends to a growing byte array. */
  static final class Out {
    /** The most bytes an array can hold on common JVMs. */
    private static final int MAX_SIZE = Integer.MAX_VALUE - 8;

    private byte[] buf;
    private int size;

    Out() {
      this(32);
    }

    /** An empty array with room for {@code capacity} bytes before it grows. */
    Out(int capacity) {
      this.buf = new byte[Math.max(1, capacity)];
    }

    /** Room for {@code more} bytes after the ones written: the array at least doubles when it grows. */
    private void room(int more) {
      long needed = (long) size + more;
      if (needed > buf.length) {
        if (needed > MAX_SIZE) {
          throw new IllegalStateException("Cannot write an index blob of more than " + MAX_SIZE + " bytes");
        }
        buf = Arrays.copyOf(buf, (int) Math.max(needed, Math.min(MAX_SIZE, 2L * buf.length)));
      }
    }

    Out int8(int value) {
      room(1);
      buf[size++] = (byte) value;
      return this;
    }

    Out int32(int value) {
      room(Integer.BYTES);
      for (int i = 0; i < Integer.BYTES; i++) {
        buf[size++] = (byte) (value >>> (8 * i));
      }
      return this;
    }

    Out int64(long value) {
      room(Long.BYTES);
      for (int i = 0; i < Long.BYTES; i++) {
        buf[size++] = (byte) (value >>> (8 * i));
      }
      return this;
    }

    Out varint(long value) {
      room(10);
      long v = value;
      while ((v & ~0x7FL) != 0) {
        buf[size++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[size++] = (byte) v;
      return this;
    }

    Out bytes(byte[] bytes) {
      room(bytes.length);
      System.arraycopy(bytes, 0, buf, size, bytes.length);
      size += bytes.length;
      return this;
    }

    /** The bytes written to {@code other}. */
    Out bytes(Out other) {
      room(other.size);
      System.arraycopy(other.buf, 0, buf, size, other.size);
      size += other.size;
      return this;
    }

    /** A varint length, then the bytes. */
    Out lengthPrefixed(byte[] bytes) {
      return varint(bytes.length).bytes(bytes);
    }

    /** A varint length, then {@code bytes} from {@code from} to {@code to}. */
    Out lengthPrefixed(byte[] bytes, int from, int to) {
      varint(to - from);
      room(to - from);
      System.arraycopy(bytes, from, buf, size, to - from);
      size += to - from;
      return this;
    }

    /**
     * What {@link #lengthPrefixed} writes for the {@code width} (4 or 8) little-endian bytes of
     * {@code value}: an int or long key's single-value serialization, without an array per key.
     */
    Out lengthPrefixedLittleEndian(long value, int width) {
      varint(width);
      room(width);
      for (int i = 0; i < width; i++) {
        buf[size++] = (byte) (value >>> (8 * i));
      }
      return this;
    }

    /**
     * A varint length, then {@code bitmap} in the portable Roaring format, written in place (an
     * index page holds one per key: no byte array per bitmap, only a buffer view over this one).
     */
    Out bitmap(RoaringBitmap bitmap) {
      int length = bitmap.serializedSizeInBytes();
      varint(length);
      room(length);
      bitmap.serialize(ByteBuffer.wrap(buf, size, length).slice().order(ByteOrder.LITTLE_ENDIAN));
      size += length;
      return this;
    }

    int size() {
      return size;
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, size);
    }
  }


  /** Reads a blob front to back; {@code what} names the blob in errors. */
  static final class In {
    private final ByteBuffer buf;
    private final String what;

    In(byte[] bytes, String what) {
      this.buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      this.what = what;
    }

    private void need(int n, String field) {
      if (n < 0 || buf.remaining() < n) {
        throw malformed(field, n + " more bytes", buf.remaining() + " (truncated blob)");
      }
    }

    Malformed malformed(String field, String expected, String found) {
      return new Malformed(what + " at byte " + buf.position() + " (" + field + ")", expected, found);
    }

    int int8(String field) {
      need(1, field);
      return buf.get() & 0xFF;
    }

    int int32(String field) {
      need(4, field);
      return buf.getInt();
    }

    long int64(String field) {
      need(8, field);
      return buf.getLong();
    }

    /** A non-negative int32 no larger than the bytes left divided by {@code minBytesEach}. */
    int count(String field, int minBytesEach) {
      int n = int32(field);
      if (n < 0 || (long) n * minBytesEach > buf.remaining()) {
        throw malformed(field, "a count from 0 to " + buf.remaining() / Math.max(1, minBytesEach), String.valueOf(n));
      }
      return n;
    }

    long varint(String field) {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        need(1, field);
        int b = buf.get() & 0xFF;
        value |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
      throw malformed(field, "a varint of at most 10 bytes", "a longer one");
    }

    int varint32(String field) {
      long v = varint(field);
      if (v < 0 || v > Integer.MAX_VALUE) {
        throw malformed(field, "a value from 0 to " + Integer.MAX_VALUE, String.valueOf(v));
      }
      return (int) v;
    }

    byte[] bytes(int n, String field) {
      need(n, field);
      byte[] out = new byte[n];
      buf.get(out);
      return out;
    }

    byte[] lengthPrefixed(String field) {
      return bytes(varint32(field), field);
    }

    String utf8(String field) {
      return new String(lengthPrefixed(field), StandardCharsets.UTF_8);
    }

    /** Fails unless every byte was read. */
    void end() {
      if (buf.hasRemaining()) {
        throw malformed("end", "the end of the blob", buf.remaining() + " more bytes");
      }
    }
  }
}
