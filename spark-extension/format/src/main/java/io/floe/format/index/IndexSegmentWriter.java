package io.floe.format.index;

import io.floe.format.FloeVersion;
import io.floe.format.io.OutputFile;
import io.floe.format.puffin.Blob;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinCompressionCodec;
import io.floe.format.puffin.PuffinWriter;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.Arrays;
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
  /** Keys of integral key types (int, bigint, date, time, timestamp) are kept as longs, others boxed. */
  private final boolean integral;
  private final boolean intKeys;
  private final List<Object> keys = new ArrayList<>();
  /** Whether keys sort as their serialized bytes do, unsigned (string: UTF-8 in code point order; binary). */
  private final boolean bytewise;
  /**
   * The serialized bytes of {@link #keys} back to back, key {@code i}'s from {@code keyStarts[i]} to
   * {@code keyStarts[i + 1]}, while {@link #write} sorts them bytewise; else null. One array, not one
   * per key: a large build's keys cost a few bytes each more, not an object each.
   */
  private byte[] keyData;
  private int[] keyStarts;
  private long[] longKeys;
  private int size;
  /**
   * Where each {@link #addIntegral} call's values start, while every call's values ascend and no
   * value came through {@link #add}; else null (the entries are then radix-sorted).
   */
  private int[] runStarts = new int[16];
  private int runs;
  private int[] entryFiles = new int[1024];
  /** The first key added through {@link #addEntry} that does not fit the key type ({@link #write} rejects it). */
  private Object invalidKey;
  /**
   * Whether every entry came through {@link #addInOrder}, which takes keys in ascending order (as a
   * merge of segments reads them): {@link #write} then keeps the order they came in, without a sort.
   */
  private boolean inKeyOrder = true;

  private IndexSegmentWriter(Builder b) {
    this.type = b.type;
    this.fieldId = b.fieldId;
    this.keyType = b.keyType;
    this.pageSizeBytes = b.pageSizeBytes;
    this.snapshotId = b.snapshotId;
    this.sequenceNumber = b.sequenceNumber;
    Type.TypeID id = keyType.typeId();
    this.intKeys = id == Type.TypeID.INTEGER || id == Type.TypeID.DATE;
    this.integral = intKeys || id == Type.TypeID.LONG || id == Type.TypeID.TIME || id == Type.TypeID.TIMESTAMP;
    this.longKeys = new long[integral ? 1024 : 0];
    this.bytewise = id == Type.TypeID.STRING || id == Type.TypeID.BINARY;
  }

  public static Builder builder(IndexType type, int fieldId, Type keyType) {
    return new Builder(type, fieldId, keyType);
  }

  /** Covers {@code file} with its values; a file added twice holds the values of both. */
  public IndexSegmentWriter add(FileValues file) {
    inKeyOrder = false;
    int ordinal = cover(file.path());
    for (Object value : file.values()) {
      addEntry(value, ordinal);
    }
    if (file.containsNull()) {
      nullFiles.add(ordinal);
    }
    return this;
  }

  /**
   * Covers the file at {@code path} with its values of an integral key column (int, bigint, date,
   * timestamp), given as longs (int and date keys as their int value), in any order; duplicates are
   * ignored. The same as {@link #add} with the boxed values, without boxing them.
   */
  public IndexSegmentWriter addIntegral(String path, long[] values, boolean containsNull) {
    if (!integral) {
      throw new IllegalArgumentException("Index key type " + keyType + " is not integral: add its values with add()");
    }
    inKeyOrder = false;
    int ordinal = cover(path);
    noteRun(values);
    for (long value : values) {
      if (intKeys && (int) value != value) {
        throw new IllegalArgumentException("Invalid value for an index key of type " + keyType + ": " + value
            + " (out of the int range)");
      }
      appendLong(value, ordinal);
    }
    if (containsNull) {
      nullFiles.add(ordinal);
    }
    return this;
  }

  /** Records where the run of {@code values} (about to be appended) starts, or that entries are not runs of ascending keys. */
  private void noteRun(long[] values) {
    if (runStarts == null) {
      return;
    }
    for (int i = 1; i < values.length; i++) {
      if (values[i] < values[i - 1]) {
        runStarts = null; // sorted by radix instead
        return;
      }
    }
    if (runs == runStarts.length) {
      runStarts = Arrays.copyOf(runStarts, runs * 2);
    }
    runStarts[runs++] = size;
  }

  /** Whether keys are kept as primitive longs (int, bigint, date, time and timestamp columns). */
  boolean integralKeys() {
    return integral;
  }

  /** Covers {@code path}, returning its ordinal. */
  int cover(String path) {
    return ordinals.computeIfAbsent(Objects.requireNonNull(path, "Data file path is null"), p -> ordinals.size());
  }

  void addNull(int ordinal) {
    nullFiles.add(ordinal);
  }

  /**
   * Adds key {@code key}, above every key added before, held by the first {@code count} of
   * {@code ordinals} (files this writer covers): how a merge adds the union of its segments, key by
   * key. A key out of order is an error.
   */
  void addInOrder(Object key, int[] ordinals, int count) {
    if (inKeyOrder && size > 0 && compareToLast(key) >= 0) {
      throw new IllegalArgumentException("Index keys out of order: " + key + " after " + key(size - 1));
    }
    boolean wasInKeyOrder = inKeyOrder;
    for (int j = 0; j < count; j++) {
      addEntry(key, ordinals[j]);
    }
    inKeyOrder = wasInKeyOrder;
  }

  /** {@code key} against the last key added; a key of another type fails as {@link #write} would name it. */
  private int compareToLast(Object key) {
    try {
      return IndexKeys.ORDER.compare(key(size - 1), key);
    } catch (IllegalArgumentException e) {
      checkedBytes(key);
      throw e;
    }
  }

  void addEntry(Object value, int ordinal) {
    runStarts = null; // entries added one by one: no known runs
    inKeyOrder = false;
    if (integral) {
      if (intKeys ? value instanceof Integer : value instanceof Long) {
        appendLong(((Number) value).longValue(), ordinal);
      } else if (invalidKey == null) {
        invalidKey = Objects.requireNonNull(value, "Index key is null");
      }
      return;
    }
    if (size == entryFiles.length) {
      entryFiles = Arrays.copyOf(entryFiles, entryFiles.length * 2);
    }
    entryFiles[size++] = ordinal;
    keys.add(value);
  }

  private void appendLong(long value, int ordinal) {
    if (size == entryFiles.length) {
      entryFiles = Arrays.copyOf(entryFiles, entryFiles.length * 2);
    }
    if (size == longKeys.length) {
      longKeys = Arrays.copyOf(longKeys, longKeys.length * 2);
    }
    entryFiles[size] = ordinal;
    longKeys[size++] = value;
  }

  /** Writes the segment to {@code out} and returns its index list entry. */
  public IndexSegment write(OutputFile out) {
    int[] order = sortedEntries();
    List<IndexDirectory.PageRef> pages = new ArrayList<>();
    BlobBytes.Out pagesBlob = new BlobBytes.Out();
    BlobBytes.Out page = newPage();
    RoaringBitmap valueFiles = valueFiles();
    int pageEntries = 0;
    long entryCount = 0;
    Object firstKey = null;
    int lastPosition = -1;
    RoaringBitmap files = new RoaringBitmap();
    int[] keyFiles = new int[16]; // the files of one key, as added
    for (int i = 0; i < order.length;) {
      int position = order[i];
      int count = 0;
      for (; i < order.length && sameKey(order[i], position); i++) {
        if (count == keyFiles.length) {
          keyFiles = Arrays.copyOf(keyFiles, count * 2);
        }
        keyFiles[count++] = entryFiles[order[i]];
      }
      if (integral) { // the key's single-value bytes, without an array per key
        page.lengthPrefixedLittleEndian(longKeys[position], intKeys ? Integer.BYTES : Long.BYTES);
      } else {
        if (keyData != null) {
          page.lengthPrefixed(keyData, keyStarts[position], keyStarts[position + 1]);
        } else {
          page.lengthPrefixed(checkedBytes(keys.get(position)));
        }
      }
      if (type == IndexType.BTREE) {
        IndexPage.appendBtreeFiles(keyFiles, count, page);
      } else {
        files.clear();
        files.addN(keyFiles, 0, count);
        IndexPage.appendFiles(type, files, page);
      }
      firstKey = pageEntries == 0 ? key(position) : firstKey;
      lastPosition = position;
      pageEntries++;
      entryCount++;
      if (page.size() >= pageSizeBytes || i == order.length) {
        Object lastKey = key(lastPosition);
        byte[] body = IndexPage.body(pageEntries, page);
        byte[] stored = IndexPage.compress(body);
        pages.add(new IndexDirectory.PageRef(pagesBlob.size(), stored.length, body.length, pageEntries, firstKey,
            lastKey));
        pagesBlob.bytes(stored);
        page = newPage();
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

  /** The ordinals of the files that hold at least one key, from one pass over the entries. */
  private RoaringBitmap valueFiles() {
    boolean[] holds = new boolean[ordinals.size()];
    for (int j = 0; j < size; j++) {
      holds[entryFiles[j]] = true;
    }
    RoaringBitmap valueFiles = new RoaringBitmap();
    for (int ordinal = 0; ordinal < holds.length; ordinal++) {
      if (holds[ordinal]) {
        valueFiles.add(ordinal);
      }
    }
    return valueFiles;
  }

  /** A page's buffer, with room for a page's entries and about one more before it grows (at most 1 MiB). */
  private BlobBytes.Out newPage() {
    return new BlobBytes.Out((int) Math.min(1 << 20, pageSizeBytes + pageSizeBytes / 4L));
  }

  private Blob blob(String blobType, byte[] data) {
    return Blob.of(blobType, List.of(fieldId), snapshotId, sequenceNumber, data);
  }

  /**
   * Entry positions sorted by key, after checking each key fits the key type (the comparator needs
   * keys of one type); entries added in key order keep their order and are checked as they are written.
   */
  private int[] sortedEntries() {
    if (invalidKey != null) {
      checkedBytes(invalidKey);
    }
    if (inKeyOrder) { // each key is checked as it is written
      int[] order = new int[size];
      Arrays.setAll(order, i -> i);
      return order;
    }
    if (bytewise && serializeKeys()) { // once: the check, the sort and the pages all use these bytes
      return EntryOrder.byBytes(keyData, keyStarts, keys.size());
    }
    for (Object key : keys) {
      checkedBytes(key);
    }
    if (!integral) {
      return EntryOrder.of(keys);
    }
    // many short runs (a column with few values per file) merge no faster than a sort
    boolean merge = runStarts != null && runs <= Math.max(1, size / 8);
    return merge ? EntryOrder.byMerge(longKeys, size, runStarts, runs) : EntryOrder.byRadix(longKeys, size);
  }

  private boolean sameKey(int a, int b) {
    if (integral) {
      return longKeys[a] == longKeys[b];
    }
    if (keyData != null) {
      return Arrays.equals(keyData, keyStarts[a], keyStarts[a + 1], keyData, keyStarts[b], keyStarts[b + 1]);
    }
    Object left = keys.get(a);
    Object right = keys.get(b);
    return left == right || IndexKeys.ORDER.compare(left, right) == 0; // a merge adds one key object per file
  }

  /** The key of entry {@code position} in Floe's Java value representation. */
  private Object key(int position) {
    if (!integral) {
      return keys.get(position);
    }
    long key = longKeys[position];
    return intKeys ? (Object) (int) key : (Object) key;
  }

  /**
   * Serializes every key into {@link #keyData} (checking each fits the key type); false, leaving it
   * null, if together they pass the largest array.
   */
  private boolean serializeKeys() {
    int n = keys.size();
    int[] starts = new int[n + 1];
    byte[] data = new byte[16 + 16 * Math.min(n, 1 << 20)]; // grows by doubling
    int length = 0;
    for (int i = 0; i < n; i++) {
      byte[] bytes = checkedBytes(keys.get(i));
      if (length + (long) bytes.length > Integer.MAX_VALUE - 16) {
        return false;
      }
      if (length + bytes.length > data.length) {
        data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(2L * data.length,
            (long) length + bytes.length)));
      }
      System.arraycopy(bytes, 0, data, length, bytes.length);
      starts[i] = length;
      length += bytes.length;
    }
    starts[n] = length;
    keyData = data;
    keyStarts = starts;
    return true;
  }

  /** The single-value bytes of {@code key}, or an error naming it if it does not fit the key type. */
  private byte[] checkedBytes(Object key) {
    try {
      return IndexKeys.toBytes(keyType, key);
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
