package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;
import org.roaringbitmap.RoaringBitmap;

/** Round trips of each blob layout (files, page, directory) and the errors of malformed bytes. */
public class TestIndexBlobs {

  @Test
  public void coveredFilesRoundTrip() {
    CoveredFiles files = new CoveredFiles(List.of("file:/a/x.parquet", "s3://b/é/中.parquet", ""));
    CoveredFiles back = CoveredFiles.fromBytes(files.toBytes());
    assertEquals(files.paths(), back.paths());
    assertEquals(1, back.ordinal("s3://b/é/中.parquet"));
    assertEquals(-1, back.ordinal("file:/other"));
    assertEquals(0, CoveredFiles.fromBytes(new CoveredFiles(List.of()).toBytes()).size());
  }

  @Test
  public void coveredFilesRejectTruncationAndDuplicates() {
    byte[] bytes = new CoveredFiles(List.of("file:/a", "file:/b")).toBytes();
    BlobBytes.Malformed e = assertThrows(BlobBytes.Malformed.class,
        () -> CoveredFiles.fromBytes(Arrays.copyOf(bytes, bytes.length - 1)));
    assertTrue(e.getMessage(), e.getMessage().contains("truncated blob"));
    byte[] twice = new CoveredFiles(List.of("file:/a", "file:/a")).toBytes();
    e = assertThrows(BlobBytes.Malformed.class, () -> CoveredFiles.fromBytes(twice));
    assertTrue(e.getMessage(), e.getMessage().contains("2 distinct paths"));
  }

  @Test
  public void pagesRoundTripForBothTypes() {
    Type type = Types.DecimalType.of(12, 3);
    List<Object> keys = List.of(new BigDecimal("-5.000"), new BigDecimal("0.001"), new BigDecimal("123456789.999"));
    List<RoaringBitmap> files = List.of(RoaringBitmap.bitmapOf(0, 7), RoaringBitmap.bitmapOf(3),
        RoaringBitmap.bitmapOfRange(0, 9));
    for (IndexType indexType : IndexType.values()) {
      BlobBytes.Out entries = new BlobBytes.Out();
      for (int i = 0; i < keys.size(); i++) {
        IndexPage.appendEntry(indexType, IndexKeys.toBytes(type, keys.get(i)), files.get(i), entries);
      }
      byte[] stored = IndexPage.compress(IndexPage.body(keys.size(), entries));
      byte[] body = IndexPage.decompress(stored, IndexPage.body(keys.size(), entries).length, "page 0");
      IndexPage page = IndexPage.decode(indexType, type, body, 9, "page 0");
      assertEquals(3, page.size());
      for (int i = 0; i < keys.size(); i++) {
        assertEquals(keys.get(i), page.key(i));
        assertEquals(files.get(i), page.files(i));
      }
      assertEquals(1, page.find(new BigDecimal("0.001")));
      // an ordinal beyond the covered files is refused
      BlobBytes.Malformed e = assertThrows(BlobBytes.Malformed.class,
          () -> IndexPage.decode(indexType, type, body, 8, "page 0"));
      assertTrue(e.getMessage(), e.getMessage().contains("ordinals below 8"));
    }
  }

  @Test
  public void anInvertedPageHasTheDocumentedBytes() {
    // docs/indexes.md: int32 LE entry count; per entry a varint length and the key's single-value
    // bytes, a varint length and the portable Roaring bitmap (RoaringFormatSpec: cookie 12346 when
    // there is no run container, the container count, per container its key and cardinality - 1 as
    // uint16, its offset as int32, then an array container's values as uint16; all little-endian)
    BlobBytes.Out entries = new BlobBytes.Out();
    IndexPage.appendEntry(IndexType.INVERTED, IndexKeys.toBytes(Types.LongType.get(), 5L),
        RoaringBitmap.bitmapOf(0, 2), entries);
    IndexPage.appendEntry(IndexType.INVERTED, IndexKeys.toBytes(Types.LongType.get(), 300L),
        RoaringBitmap.bitmapOf(70_000), entries);
    byte[] expected = bytes(
        1 + 1, 0, 0, 0,                                    // 2 entries
        8, 5, 0, 0, 0, 0, 0, 0, 0,                         // key 5
        20, 0x3A, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0,      // cookie 12346, 1 container: key 0, 2 values
        16, 0, 0, 0, 0, 0, 2, 0,                           // its offset (16), the values 0 and 2
        8, 0x2C, 1, 0, 0, 0, 0, 0, 0,                      // key 300
        18, 0x3A, 0x30, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,      // 1 container: key 1 (70,000 >>> 16), 1 value
        16, 0, 0, 0, 0x70, 0x11);                          // 70,000 & 0xFFFF = 4464
    assertEquals(Arrays.toString(expected), Arrays.toString(IndexPage.body(2, entries)));
  }

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  @Test
  public void pageKeysMustAscend() {
    Type type = Types.StringType.get();
    BlobBytes.Out entries = new BlobBytes.Out();
    for (String key : List.of("b", "a")) {
      IndexPage.appendEntry(IndexType.BTREE, IndexKeys.toBytes(type, key), RoaringBitmap.bitmapOf(0), entries);
    }
    BlobBytes.Malformed e = assertThrows(BlobBytes.Malformed.class,
        () -> IndexPage.decode(IndexType.BTREE, type, IndexPage.body(2, entries), 1, "page 3"));
    assertTrue(e.getMessage(), e.getMessage().contains("page 3") && e.getMessage().contains("a key above b"));
  }

  @Test
  public void directoryRoundTrip() {
    Type type = Types.BinaryType.get();
    List<IndexDirectory.PageRef> pages = new ArrayList<>();
    pages.add(new IndexDirectory.PageRef(0, 10, 40, 2, buffer(0x00), buffer(0x7F)));
    pages.add(new IndexDirectory.PageRef(10, 12, 44, 3, buffer(0x80), buffer(0xFF, 0xFF)));
    IndexDirectory dir = new IndexDirectory(IndexType.INVERTED, 5, 5, pages, RoaringBitmap.bitmapOf(1, 4),
        RoaringBitmap.bitmapOf(0, 1, 2));
    IndexDirectory back = IndexDirectory.fromBytes(dir.toBytes(type), type);
    assertEquals(IndexType.INVERTED, back.type());
    assertEquals(5, back.fileCount());
    assertEquals(5, back.entryCount());
    assertEquals(pages, back.pages());
    assertEquals(RoaringBitmap.bitmapOf(1, 4), back.nullFiles());
    assertEquals(RoaringBitmap.bitmapOf(0, 1, 2), back.valueFiles());
  }

  @Test
  public void directoryRejectsOverlappingPagesAndUnknownVersions() {
    Type type = Types.IntegerType.get();
    List<IndexDirectory.PageRef> overlapping = List.of(new IndexDirectory.PageRef(0, 10, 40, 1, 1, 5),
        new IndexDirectory.PageRef(10, 10, 40, 1, 5, 9));
    byte[] bytes = new IndexDirectory(IndexType.BTREE, 1, 2, overlapping, new RoaringBitmap(), new RoaringBitmap())
        .toBytes(type);
    BlobBytes.Malformed e = assertThrows(BlobBytes.Malformed.class, () -> IndexDirectory.fromBytes(bytes, type));
    assertTrue(e.getMessage(), e.getMessage().contains("without overlap"));
    bytes[0] = 2;
    e = assertThrows(BlobBytes.Malformed.class, () -> IndexDirectory.fromBytes(bytes, type));
    assertTrue(e.getMessage(), e.getMessage().contains("version 1") && e.getMessage().contains("newer Floe"));
  }

  private static ByteBuffer buffer(int... bytes) {
    byte[] out = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      out[i] = (byte) bytes[i];
    }
    return ByteBuffer.wrap(out);
  }
}
