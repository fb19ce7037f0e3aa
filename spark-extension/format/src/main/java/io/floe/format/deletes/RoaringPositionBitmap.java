package io.floe.format.deletes;

import io.floe.format.FloeFormatException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.LongConsumer;
import org.roaringbitmap.BatchIterator;
import org.roaringbitmap.InvalidRoaringFormat;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * A set of 64-bit row positions: one 32-bit {@link RoaringBitmap} per key (the high 32 bits of a
 * position) holding the low 32 bits, as Iceberg's {@code RoaringPositionBitmap}. Positions go
 * from 0 to {@link #MAX_POSITION}. A lookup is one array index (keys are dense in practice: a file
 * below 2^32 rows has the single key 0) and one 32-bit Roaring lookup.
 *
 * <p>Its byte layout is the "portable" 64-bit Roaring format (all little-endian):
 * <pre>
 *   offset 0 : uint64  n = number of 32-bit bitmaps
 *   offset 8 : n times, keys strictly ascending:
 *                uint32  key (high 32 bits of the positions below; at most 2^31 - 2)
 *                a standard 32-bit Roaring bitmap (RoaringFormatSpec: cookie 12346 without run
 *                containers, 12347 with them) of the low 32 bits
 * </pre>
 * Like Java, the writer emits the dense key range 0..maxKey, empty bitmaps in the gaps; the
 * reader accepts sparse keys too.
 */
public final class RoaringPositionBitmap {
  /** The largest key Java accepts. */
  static final int MAX_KEY = Integer.MAX_VALUE - 1;
  public static final long MAX_POSITION = ((long) MAX_KEY << 32) | 0xFFFFFFFFL;
  private static final int BITMAP_COUNT_SIZE = 8;
  private static final int KEY_SIZE = 4;
  private static final int EMPTY_BITMAP_SIZE = new RoaringBitmap().serializedSizeInBytes();

  // keys ascending; usually dense (keys[i] == i), a single key 0 below 2^32 rows
  private int[] keys;
  private RoaringBitmap[] bitmaps;

  public RoaringPositionBitmap() {
    this(new int[0], new RoaringBitmap[0]);
  }

  private RoaringPositionBitmap(int[] keys, RoaringBitmap[] bitmaps) {
    this.keys = keys;
    this.bitmaps = bitmaps;
  }

  private static int key(long position) {
    return (int) (position >>> 32);
  }

  private static void checkPosition(long position) {
    if (position < 0 || position > MAX_POSITION) {
      throw new IllegalArgumentException(
          "Invalid position: " + position + " (expected 0 to " + MAX_POSITION + ")");
    }
  }

  private int indexOf(int key) {
    return key < keys.length && keys[key] == key ? key : Arrays.binarySearch(keys, key);
  }

  private RoaringBitmap bitmapFor(int key) {
    int index = indexOf(key);
    if (index >= 0) {
      return bitmaps[index];
    }
    int at = -index - 1;
    int n = keys.length;
    int[] newKeys = new int[n + 1];
    RoaringBitmap[] newBitmaps = new RoaringBitmap[n + 1];
    System.arraycopy(keys, 0, newKeys, 0, at);
    System.arraycopy(bitmaps, 0, newBitmaps, 0, at);
    System.arraycopy(keys, at, newKeys, at + 1, n - at);
    System.arraycopy(bitmaps, at, newBitmaps, at + 1, n - at);
    newKeys[at] = key;
    newBitmaps[at] = new RoaringBitmap();
    this.keys = newKeys;
    this.bitmaps = newBitmaps;
    return newBitmaps[at];
  }

  public void add(long position) {
    checkPosition(position);
    bitmapFor(key(position)).add((int) position);
  }

  /** Adds the positions from {@code start} (inclusive) to {@code end} (exclusive). */
  public void addRange(long start, long end) {
    if (start >= end) {
      return;
    }
    checkPosition(start);
    checkPosition(end - 1);
    for (long from = start; from < end; ) {
      long base = (long) key(from) << 32;
      long keyEnd = Math.min(end, base + (1L << 32));
      bitmapFor(key(from)).add(from - base, keyEnd - base);
      from = keyEnd;
    }
  }

  /** Adds every position of {@code other}. */
  public void addAll(RoaringPositionBitmap other) {
    for (int i = 0; i < other.keys.length; i++) {
      if (!other.bitmaps[i].isEmpty()) {
        bitmapFor(other.keys[i]).or(other.bitmaps[i]);
      }
    }
  }

  public boolean contains(long position) {
    if (position < 0) {
      return false;
    }
    int index = indexOf(key(position));
    return index >= 0 && bitmaps[index].contains((int) position);
  }

  public boolean isEmpty() {
    for (RoaringBitmap bitmap : bitmaps) {
      if (!bitmap.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  public long cardinality() {
    long total = 0;
    for (RoaringBitmap bitmap : bitmaps) {
      total += bitmap.getLongCardinality();
    }
    return total;
  }

  /** Calls {@code consumer} with every position in ascending order. */
  public void forEach(LongConsumer consumer) {
    for (int i = 0; i < keys.length; i++) {
      long high = (long) keys[i] << 32;
      bitmaps[i].forEach((int low) -> consumer.accept(high | (low & 0xFFFFFFFFL)));
    }
  }

  /**
   * Writes into {@code out}, ascending, the offset {@code p - start} of every position {@code p} in
   * [start, start + length), and returns how many there are ({@code out} must hold up to
   * {@code length}). A range without positions costs one container lookup per key it spans (one,
   * below 2^32 rows), whatever its length: readers call this once per batch of rows.
   */
  public int offsetsInRange(long start, int length, int[] out) {
    if (length <= 0 || keys.length == 0) {
      return 0;
    }
    long end = start + length;
    int count = 0;
    for (long from = Math.max(start, 0); from < end; ) {
      int key = key(from);
      if (key > MAX_KEY) {
        break; // beyond the largest position
      }
      long base = (long) key << 32;
      long keyEnd = Math.min(end, base + (1L << 32));
      int index = indexOf(key);
      if (index >= 0) {
        RoaringBitmap bitmap = bitmaps[index];
        long limit = keyEnd - base; // exclusive, unsigned low bits, may be 2^32
        long first = bitmap.nextValue((int) (from - base));
        if (first >= 0 && first < limit) {
          PeekableIntIterator it = bitmap.getIntIterator();
          it.advanceIfNeeded((int) first);
          long offset = base - start;
          while (it.hasNext()) {
            long low = Integer.toUnsignedLong(it.peekNext());
            if (low >= limit) {
              break;
            }
            out[count++] = (int) (offset + low);
            it.next();
          }
        }
      }
      from = keyEnd;
    }
    return count;
  }

  /**
   * A cursor for {@link Cursor#offsetsInRange} over ascending, adjacent ranges (batch after batch
   * of one reader): it keeps its place in the bitmap between calls and decodes the positions in
   * blocks, so that each position is decoded once. Not thread-safe; the bitmap must not change
   * while it is used.
   */
  public Cursor cursor() {
    return new Cursor();
  }

  /** See {@link #cursor()}. */
  public final class Cursor {
    private static final int BLOCK = 256;
    private final int[] block = new int[BLOCK]; // decoded low bits of key keys[keyIndex]
    private int next = 0; // next unread entry of block
    private int size = 0; // entries in block
    private int keyIndex = -1;
    private BatchIterator iterator = null;
    private long expectedStart = -1; // where the previous range ended

    private Cursor() {
    }

    /**
     * As {@link RoaringPositionBitmap#offsetsInRange}: writes into {@code out} the offsets
     * {@code p - start} of the positions {@code p} in [start, start + length) and returns their
     * count. A range that starts where the previous one ended continues from there; any other
     * range seeks (one container lookup).
     */
    public int offsetsInRange(long start, int length, int[] out) {
      if (length <= 0) {
        return 0;
      }
      if (start != expectedStart) {
        seek(Math.max(start, 0));
      }
      long end = start + length;
      expectedStart = end;
      int count = 0;
      while (true) {
        if (next == size && !refill()) {
          return count;
        }
        long position = ((long) keys[keyIndex] << 32) | Integer.toUnsignedLong(block[next]);
        if (position >= end) {
          return count;
        }
        if (position >= start) {
          out[count++] = (int) (position - start);
        }
        next++;
      }
    }

    private void seek(long position) {
      next = 0;
      size = 0;
      int key = key(position);
      int index = Arrays.binarySearch(keys, key);
      keyIndex = index >= 0 ? index : -index - 1;
      if (keyIndex < keys.length) {
        iterator = bitmaps[keyIndex].getBatchIterator();
        if (keys[keyIndex] == key) {
          iterator.advanceIfNeeded((int) position);
        }
      } else {
        iterator = null;
      }
    }

    /** Decodes the next block of positions, moving to the next key when one is exhausted. */
    private boolean refill() {
      while (iterator != null) {
        if (iterator.hasNext()) {
          size = iterator.nextBatch(block);
          next = 0;
          if (size > 0) {
            return true;
          }
        } else if (++keyIndex < keys.length) {
          iterator = bitmaps[keyIndex].getBatchIterator();
        } else {
          iterator = null;
        }
      }
      return false;
    }
  }

  /** Turns runs of positions into run containers where that is smaller; true if any changed. */
  public boolean runLengthEncode() {
    boolean changed = false;
    for (RoaringBitmap bitmap : bitmaps) {
      changed |= bitmap.runOptimize();
    }
    return changed;
  }

  /** The number of bitmaps written: the dense key range 0..maxKey. */
  private long denseCount() {
    return keys.length == 0 ? 0 : (long) keys[keys.length - 1] + 1;
  }

  public long serializedSizeInBytes() {
    long size = BITMAP_COUNT_SIZE + (denseCount() - keys.length) * (KEY_SIZE + EMPTY_BITMAP_SIZE);
    for (RoaringBitmap bitmap : bitmaps) {
      size += KEY_SIZE + bitmap.serializedSizeInBytes();
    }
    return size;
  }

  /**
   * Writes the portable layout at the buffer's position and advances it (little-endian buffers
   * only): every key from 0 to the largest, an empty bitmap where a key has no positions.
   */
  public void serialize(ByteBuffer buffer) {
    checkLittleEndian(buffer);
    buffer.putLong(denseCount());
    RoaringBitmap empty = new RoaringBitmap();
    int next = 0;
    for (int i = 0; i < keys.length; i++) {
      for (; next < keys[i]; next++) {
        buffer.putInt(next);
        empty.serialize(buffer);
      }
      buffer.putInt(keys[i]);
      bitmaps[i].serialize(buffer);
      next = keys[i] + 1;
    }
  }

  /**
   * Reads the portable layout at the buffer's position and advances past it. {@code source}
   * names the bytes in errors (e.g. "deletion vector in FILE at offset N"). Sparse keys are
   * accepted; keys must be strictly ascending and at most 2^31 - 2.
   */
  public static RoaringPositionBitmap deserialize(ByteBuffer buffer, String source) {
    checkLittleEndian(buffer);
    int start = buffer.position();
    try {
      long count = buffer.getLong();
      long minimumSize = count * (KEY_SIZE + (long) EMPTY_BITMAP_SIZE);
      if (count < 0 || count > Integer.MAX_VALUE || minimumSize > buffer.remaining()) {
        throw corrupt(source, start, "bitmap count " + count + " does not fit in the "
            + buffer.remaining() + " bytes that follow it");
      }
      int[] keys = new int[(int) count];
      RoaringBitmap[] bitmaps = new RoaringBitmap[(int) count];
      long lastKey = -1;
      for (int i = 0; i < count; i++) {
        int at = buffer.position();
        long key = Integer.toUnsignedLong(buffer.getInt());
        if (key > MAX_KEY) {
          throw corrupt(source, at, "key " + key + " is larger than " + MAX_KEY);
        }
        if (key <= lastKey) {
          throw corrupt(source, at, "key " + key + " after key " + lastKey
              + " (expected keys in strictly ascending order)");
        }
        RoaringBitmap bitmap = new RoaringBitmap();
        bitmap.deserialize(buffer);
        buffer.position(buffer.position() + bitmap.serializedSizeInBytes());
        keys[i] = (int) key;
        bitmaps[i] = bitmap;
        lastKey = key;
      }
      return new RoaringPositionBitmap(keys, bitmaps);
    } catch (BufferUnderflowException | IndexOutOfBoundsException | IllegalArgumentException
        | InvalidRoaringFormat | IOException e) {
      throw corrupt(source, start, "truncated or invalid 64-bit Roaring bitmap ("
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    }
  }

  private static FloeFormatException corrupt(String source, int offset, String problem) {
    return new FloeFormatException("Invalid " + source + ": at byte " + offset + ", " + problem);
  }

  private static void checkLittleEndian(ByteBuffer buffer) {
    if (buffer.order() != ByteOrder.LITTLE_ENDIAN) {
      throw new IllegalArgumentException("Roaring position bitmaps need a little-endian buffer");
    }
  }

  /** Equal when they hold the same positions (empty bitmaps and run encoding do not matter). */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RoaringPositionBitmap)) {
      return false;
    }
    RoaringPositionBitmap other = (RoaringPositionBitmap) o;
    if (cardinality() != other.cardinality()) {
      return false;
    }
    for (int i = 0; i < keys.length; i++) {
      int index = other.indexOf(keys[i]);
      RoaringBitmap mine = bitmaps[i];
      if (index < 0 ? !mine.isEmpty() : !RoaringBitmap.xor(mine, other.bitmaps[index]).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    long h = cardinality();
    for (int i = 0; i < keys.length; i++) {
      if (!bitmaps[i].isEmpty()) {
        h = 31 * h + keys[i] * 17L + bitmaps[i].first() + 7L * bitmaps[i].last();
      }
    }
    return Long.hashCode(h);
  }

  @Override
  public String toString() {
    return "RoaringPositionBitmap(cardinality=" + cardinality() + ", keys=" + bitmaps.length + ")";
  }
}
