package io.floe.format.index;

import io.floe.format.FloeVersion;
import io.floe.format.io.OutputFile;
import io.floe.format.puffin.Blob;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinCompressionCodec;
import io.floe.format.puffin.PuffinWriter;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.roaringbitmap.RoaringBitmap;

/**
 * Builds one index segment from what each data file holds and writes it as one Puffin file
 * (docs/indexes.md): the covered files, the pages of sorted keys, and the page directory.
 * <pre>
 *   IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, fieldId, keyType)
 *       .snapshot(snapshotId, sequenceNumber).build();
 *   writer.add(FileValues.of(path, values));
 *   IndexSegment segment = writer.write(io.newOutputFile(IndexLocations.newSegment(metadataFolder, name)));
 * </pre>
 */
public final class IndexSegmentWriter {
  /** Default uncompressed page size: a lookup reads about this much per page it needs. */
  public static final int DEFAULT_PAGE_SIZE_BYTES = 64 * 1024;

  private final IndexType type;
  private final int fieldId;
  private final Type keyType;
  private final int pageSizeBytes;
  private final long snapshotId;
  private final long sequenceNumber;
  private final Map<String, Integer> ordinals = new LinkedHashMap<>();
  private final RoaringBitmap nullFiles = new RoaringBitmap();
  private final List<Object> keys = new ArrayList<>();
  private int[] entryFiles = new int[1024];

  private IndexSegmentWriter(Builder b) {
    this.type = b.type;
    this.fieldId = b.fieldId;
    this.keyType = b.keyType;
    this.pageSizeBytes = b.pageSizeBytes;
    this.snapshotId = b.snapshotId;
    this.sequenceNumber = b.sequenceNumber;
  }

  public static Builder builder(IndexType type, int fieldId, Type keyType) {
    return new Builder(type, fieldId, keyType);
  }

  /** Covers {@code file} with its values; a file added twice holds the values of both. */
  public IndexSegmentWriter add(FileValues file) {
    int ordinal = cover(file.path());
    for (Object value : file.values()) {
      addEntry(value, ordinal);
    }
    if (file.containsNull()) {
      nullFiles.add(ordinal);
    }
    return this;
  }

  /** Covers {@code path}, returning its ordinal. */
  int cover(String path) {
    return ordinals.computeIfAbsent(Objects.requireNonNull(path, "Data file path is null"), p -> ordinals.size());
  }

  void addNull(int ordinal) {
    nullFiles.add(ordinal);
  }

  void addEntry(Object value, int ordinal) {
    if (keys.size() == entryFiles.length) {
      entryFiles = java.util.Arrays.copyOf(entryFiles, entryFiles.length * 2);
    }
    entryFiles[keys.size()] = ordinal;
    keys.add(value);
  }

  /** Writes the segment to {@code out} and returns its index list entry. */
  public IndexSegment write(OutputFile out) {
    int[] order = sortedEntries();
    List<IndexDirectory.PageRef> pages = new ArrayList<>();
    BlobBytes.Out pagesBlob = new BlobBytes.Out();
    BlobBytes.Out page = new BlobBytes.Out();
    RoaringBitmap valueFiles = new RoaringBitmap();
    valueFiles.addN(entryFiles, 0, keys.size());
    int pageEntries = 0;
    long entryCount = 0;
    Object firstKey = null;
    Object lastKey = null;
    for (int i = 0; i < order.length;) {
      Object key = keys.get(order[i]);
      RoaringBitmap files = new RoaringBitmap();
      for (; i < order.length && IndexKeys.ORDER.compare(keys.get(order[i]), key) == 0; i++) {
        files.add(entryFiles[order[i]]);
      }
      IndexPage.appendEntry(type, IndexKeys.toBytes(keyType, key), files, page);
      firstKey = pageEntries == 0 ? key : firstKey;
      lastKey = key;
      pageEntries++;
      entryCount++;
      if (page.size() >= pageSizeBytes || i == order.length) {
        byte[] body = IndexPage.body(pageEntries, page);
        byte[] stored = IndexPage.compress(body);
        pages.add(new IndexDirectory.PageRef(pagesBlob.size(), stored.length, body.length, pageEntries, firstKey,
            lastKey));
        pagesBlob.bytes(stored);
        page = new BlobBytes.Out();
        pageEntries = 0;
      }
    }
    CoveredFiles covered = new CoveredFiles(new ArrayList<>(ordinals.keySet()));
    IndexDirectory directory = new IndexDirectory(type, covered.size(), entryCount, pages, nullFiles, valueFiles);
    Map<String, String> keyTypeProperty = Map.of(IndexBlobTypes.KEY_TYPE_PROPERTY, keyType.toString());
    try (PuffinWriter writer = Puffin.write(out).createdBy(FloeVersion.createdBy())
        .set(IndexBlobTypes.INDEX_TYPE_PROPERTY, type.typeName()).compress(PuffinCompressionCodec.ZSTD).build()) {
      writer.add(blob(IndexBlobTypes.FILES, covered.toBytes()));
      writer.add(blob(IndexBlobTypes.PAGES, pagesBlob.toByteArray()).withCompression(PuffinCompressionCodec.NONE));
      writer.add(blob(IndexBlobTypes.DIRECTORY, directory.toBytes(keyType)).withProperties(keyTypeProperty));
      writer.finish();
      return new IndexSegment(out.location(), writer.fileSize(), covered.size(), entryCount, snapshotId,
          sequenceNumber);
    }
  }

  private Blob blob(String blobType, byte[] data) {
    return Blob.of(blobType, List.of(fieldId), snapshotId, sequenceNumber, data);
  }

  /** Entry positions sorted by key, after checking each key fits the key type. */
  private int[] sortedEntries() {
    for (Object key : keys) {
      checkKey(key);
    }
    return EntryOrder.of(keys);
  }

  private void checkKey(Object key) {
    try {
      IndexKeys.toBytes(keyType, key);
    } catch (ClassCastException | IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid value for an index key of type " + keyType + ": " + key + " ("
          + key.getClass().getName() + ")", e);
    }
  }

  /** Options of a new segment. */
  public static final class Builder {
    private final IndexType type;
    private final int fieldId;
    private final Type keyType;
    private int pageSizeBytes = DEFAULT_PAGE_SIZE_BYTES;
    private long snapshotId = -1;
    private long sequenceNumber = -1;

    private Builder(IndexType type, int fieldId, Type keyType) {
      this.type = Objects.requireNonNull(type, "Index type is null");
      this.fieldId = fieldId;
      this.keyType = Objects.requireNonNull(keyType, "Key type is null");
      if (!IndexKeys.isSupported(keyType)) {
        throw new IllegalArgumentException("Unsupported index key type: " + keyType + " (supported: "
            + IndexKeys.SUPPORTED_NAMES + ")");
      }
    }

    /** The uncompressed size at which a page is closed (a page holds at least one key). */
    public Builder pageSizeBytes(int bytes) {
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid page size: " + bytes + " (must be positive)");
      }
      this.pageSizeBytes = bytes;
      return this;
    }

    /** The snapshot the segment is built at (recorded in the index list and the Puffin blobs). */
    public Builder snapshot(long id, long sequence) {
      this.snapshotId = id;
      this.sequenceNumber = sequence;
      return this;
    }

    public IndexSegmentWriter build() {
      return new IndexSegmentWriter(this);
    }
  }
}
