package io.floe.format.index;

import io.floe.format.types.Type;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * The page directory of a segment, the body of the {@code floe-index-directory-v1} blob: where each
 * page is and the first and last key it holds, so a lookup reads only the pages whose key range can
 * hold a match; and two file bitmaps that answer {@code IS NULL} and {@code IS NOT NULL} alone.
 * <pre>
 *   int8       version (1)
 *   int8       index type: 0 inverted, 1 btree
 *   int32 LE   number of covered files (as in the files blob)
 *   int64 LE   number of entries (distinct keys) in all pages
 *   int32 LE   p = number of pages
 *   p times:   int64 LE offset of the page in the pages blob, int32 LE stored (zstd) length,
 *              int32 LE uncompressed length, int32 LE number of entries,
 *              varint length + first key bytes, varint length + last key bytes
 *   varint length + portable Roaring bitmap: ordinals of files holding a null
 *   varint length + portable Roaring bitmap: ordinals of files holding a non-null value
 * </pre>
 */
final class IndexDirectory {
  static final int VERSION = 1;

  /** Where one page is and which keys it holds. */
  record PageRef(long offset, int storedLength, int length, int entries, Object firstKey, Object lastKey) {
  }

  private final IndexType type;
  private final int fileCount;
  private final long entryCount;
  private final List<PageRef> pages;
  private final RoaringBitmap nullFiles;
  private final RoaringBitmap valueFiles;

  IndexDirectory(IndexType type, int fileCount, long entryCount, List<PageRef> pages, RoaringBitmap nullFiles,
      RoaringBitmap valueFiles) {
    this.type = type;
    this.fileCount = fileCount;
    this.entryCount = entryCount;
    this.pages = List.copyOf(pages);
    this.nullFiles = nullFiles;
    this.valueFiles = valueFiles;
  }

  IndexType type() {
    return type;
  }

  int fileCount() {
    return fileCount;
  }

  long entryCount() {
    return entryCount;
  }

  List<PageRef> pages() {
    return pages;
  }

  RoaringBitmap nullFiles() {
    return nullFiles;
  }

  RoaringBitmap valueFiles() {
    return valueFiles;
  }

  byte[] toBytes(Type keyType) {
    BlobBytes.Out out = new BlobBytes.Out().int8(VERSION).int8(type.code()).int32(fileCount).int64(entryCount)
        .int32(pages.size());
    for (PageRef page : pages) {
      out.int64(page.offset()).int32(page.storedLength()).int32(page.length()).int32(page.entries())
          .lengthPrefixed(IndexKeys.toBytes(keyType, page.firstKey()))
          .lengthPrefixed(IndexKeys.toBytes(keyType, page.lastKey()));
    }
    nullFiles.runOptimize();
    valueFiles.runOptimize();
    out.bitmap(nullFiles).bitmap(valueFiles);
    return out.toByteArray();
  }

  static IndexDirectory fromBytes(byte[] bytes, Type keyType) {
    BlobBytes.In in = new BlobBytes.In(bytes, IndexBlobTypes.DIRECTORY);
    int version = in.int8("version");
    if (version != VERSION) {
      throw in.malformed("version", "version " + VERSION, "version " + version + " (written by a newer Floe?)");
    }
    int code = in.int8("index type");
    IndexType type = IndexType.fromCode(code);
    if (type == null) {
      throw in.malformed("index type", "0 (inverted) or 1 (btree)", String.valueOf(code));
    }
    int fileCount = in.int32("file count");
    long entryCount = in.int64("entry count");
    int p = in.count("page count", 22);
    PageRef[] pages = new PageRef[p];
    long pageEntries = 0;
    for (int i = 0; i < p; i++) {
      String field = "page " + i;
      long offset = in.int64(field + " offset");
      int stored = in.int32(field + " stored length");
      int length = in.int32(field + " length");
      int entries = in.int32(field + " entries");
      Object first = key(in, keyType, field + " first key");
      Object last = key(in, keyType, field + " last key");
      if (offset < 0 || stored <= 0 || length < 4 || entries <= 0
          || (i > 0 && offset != pages[i - 1].offset() + pages[i - 1].storedLength())) {
        throw in.malformed(field, "pages stored back to back with positive lengths and entries",
            "offset " + offset + ", stored length " + stored + ", length " + length + ", entries " + entries);
      }
      if (IndexKeys.ORDER.compare(first, last) > 0
          || (i > 0 && IndexKeys.ORDER.compare(pages[i - 1].lastKey(), first) >= 0)) {
        throw in.malformed(field, "key ranges ascending without overlap", "[" + first + ", " + last + "]");
      }
      pages[i] = new PageRef(offset, stored, length, entries, first, last);
      pageEntries += entries;
    }
    if (fileCount < 0 || pageEntries != entryCount) {
      throw in.malformed("entry count", "the sum of the pages' entries, " + pageEntries, String.valueOf(entryCount));
    }
    RoaringBitmap nulls = IndexPage.deserializeBitmap(in.lengthPrefixed("null files"), in, "null files");
    RoaringBitmap values = IndexPage.deserializeBitmap(in.lengthPrefixed("value files"), in, "value files");
    in.end();
    for (RoaringBitmap bitmap : List.of(nulls, values)) {
      if (!bitmap.isEmpty() && (bitmap.last() < 0 || bitmap.last() >= fileCount)) {
        throw in.malformed("file bitmaps", "ordinals below " + fileCount, Integer.toUnsignedString(bitmap.last()));
      }
    }
    return new IndexDirectory(type, fileCount, entryCount, List.of(pages), nulls, values);
  }

  private static Object key(BlobBytes.In in, Type keyType, String field) {
    byte[] bytes = in.lengthPrefixed(field);
    try {
      return IndexKeys.fromBytes(keyType, bytes);
    } catch (IllegalArgumentException e) {
      throw in.malformed(field, "a serialized " + keyType, e.getMessage());
    }
  }
}
