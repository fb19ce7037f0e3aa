package io.floe.format.index;

import com.github.luben.zstd.Zstd;
import io.floe.format.types.Type;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.roaringbitmap.RoaringBitmap;

/**
 * One page of an index: keys in ascending order, each with the ordinals of the covered files that
 * hold it. A key is never split across pages. Pages are stored back to back in the
 * {@code floe-index-pages-v1} blob, each as its own zstd frame, at the offset and length the
 * {@link IndexDirectory} gives.
 * <pre>
 *   int32 LE   n = number of entries (keys strictly ascending)
 *   n times:   varint length, key bytes (single-value serialization of the column type)
 *              inverted: varint length, a portable 32-bit Roaring bitmap of file ordinals
 *              btree:    varint m (at least 1), m varints: the first ordinal, then the gap to each next
 * </pre>
 */
final class IndexPage {
  private static final int ZSTD_LEVEL = 3;

  private final Object[] keys;
  private final RoaringBitmap[] files;

  IndexPage(Object[] keys, RoaringBitmap[] files) {
    this.keys = keys;
    this.files = files;
  }

  int size() {
    return keys.length;
  }

  Object key(int i) {
    return keys[i];
  }

  /** The ordinals of the files holding key {@code i} (do not modify). */
  RoaringBitmap files(int i) {
    return files[i];
  }

  /** The position of {@code value}, or {@code -(insertion point) - 1} as {@link Arrays#binarySearch}. */
  int find(Object value) {
    return Arrays.binarySearch(keys, value, IndexKeys.ORDER);
  }

  /** Appends one entry, its serialized key then its files, as a page of {@code type} stores it. */
  static void appendEntry(IndexType type, byte[] key, RoaringBitmap ordinals, BlobBytes.Out out) {
    out.lengthPrefixed(key);
    appendFiles(type, ordinals, out);
  }

  /**
   * Appends the files of a btree entry whose key was just appended: the first {@code count} of
   * {@code ordinals}, in any order, repeats allowed (sorted and made distinct in place), as
   * {@link #appendFiles} writes the same ordinals.
   */
  static void appendBtreeFiles(int[] ordinals, int count, BlobBytes.Out out) {
    int distinct = count;
    if (count > 1) {
      Arrays.sort(ordinals, 0, count);
      distinct = 1;
      for (int i = 1; i < count; i++) {
        if (ordinals[i] != ordinals[distinct - 1]) {
          ordinals[distinct++] = ordinals[i];
        }
      }
    }
    out.varint(distinct);
    int previous = 0;
    for (int i = 0; i < distinct; i++) {
      out.varint(ordinals[i] - previous);
      previous = ordinals[i];
    }
  }

  /** The page body of {@code count} entries appended to {@code entries}. */
  static byte[] body(int count, BlobBytes.Out entries) {
    return new BlobBytes.Out(Integer.BYTES + entries.size()).int32(count).bytes(entries).toByteArray();
  }

  /** A page body as stored: one zstd frame. */
  static byte[] compress(byte[] body) {
    return Zstd.compress(body, ZSTD_LEVEL);
  }

  /** The body of a stored page whose directory entry says it is {@code length} bytes. */
  static byte[] decompress(byte[] stored, int length, String what) {
    byte[] body;
    try {
      body = Zstd.decompress(stored, length);
    } catch (RuntimeException e) {
      throw new BlobBytes.Malformed(what, "a zstd frame of " + length + " bytes", String.valueOf(e.getMessage()));
    }
    if (body.length != length) {
      throw new BlobBytes.Malformed(what, length + " bytes", body.length + " bytes");
    }
    return body;
  }

  /** Appends the files of an entry whose key was just appended, as a page of {@code type} stores them. */
  static void appendFiles(IndexType type, RoaringBitmap ordinals, BlobBytes.Out out) {
    if (type == IndexType.INVERTED) {
      ordinals.runOptimize();
      out.bitmap(ordinals);
    } else {
      out.varint(ordinals.getCardinality());
      int previous = 0;
      for (int ordinal : ordinals) {
        out.varint(ordinal - previous);
        previous = ordinal;
      }
    }
  }

  static RoaringBitmap deserializeBitmap(byte[] bytes, BlobBytes.In in, String field) {
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(bytes));
    } catch (IOException | RuntimeException e) {
      throw in.malformed(field, "a portable Roaring bitmap of " + bytes.length + " bytes", String.valueOf(e));
    }
    if (bitmap.serializedSizeInBytes() != bytes.length) {
      throw in.malformed(field, "a Roaring bitmap of " + bytes.length + " bytes",
          "one of " + bitmap.serializedSizeInBytes());
    }
    return bitmap;
  }

  /** Decodes a page of {@code type}; every ordinal must be below {@code fileCount}. */
  static IndexPage decode(IndexType type, Type keyType, byte[] body, int fileCount, String what) {
    BlobBytes.In in = new BlobBytes.In(body, what);
    int n = in.count("entry count", 2);
    Object[] keys = new Object[n];
    RoaringBitmap[] files = new RoaringBitmap[n];
    for (int i = 0; i < n; i++) {
      try {
        keys[i] = IndexKeys.fromBytes(keyType, in.lengthPrefixed("key " + i));
      } catch (IllegalArgumentException e) {
        throw in.malformed("key " + i, "a serialized " + keyType, e.getMessage());
      }
      if (i > 0 && IndexKeys.ORDER.compare(keys[i - 1], keys[i]) >= 0) {
        throw in.malformed("key " + i, "a key above " + keys[i - 1], String.valueOf(keys[i]));
      }
      files[i] = type == IndexType.INVERTED
          ? deserializeBitmap(in.lengthPrefixed("files of key " + i), in, "files of key " + i)
          : readOrdinals(in, i);
      if (files[i].isEmpty() || files[i].last() < 0 || files[i].last() >= fileCount) {
        throw in.malformed("files of key " + i, "1 to " + fileCount + " ordinals below " + fileCount,
            files[i].isEmpty() ? "none" : "ordinal " + Integer.toUnsignedString(files[i].last()));
      }
    }
    in.end();
    return new IndexPage(keys, files);
  }

  private static RoaringBitmap readOrdinals(BlobBytes.In in, int entry) {
    String field = "files of key " + entry;
    int m = in.varint32(field);
    RoaringBitmap bitmap = new RoaringBitmap();
    long ordinal = 0;
    for (int j = 0; j < m; j++) {
      long gap = in.varint(field);
      ordinal += gap;
      if ((j > 0 && gap == 0) || ordinal > Integer.MAX_VALUE) {
        throw in.malformed(field, "ascending ordinals", "gap " + gap + " to " + ordinal);
      }
      bitmap.add((int) ordinal);
    }
    return bitmap;
  }
}
