package io.floe.format.index;

import io.floe.format.FloeFormatException;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.io.InputFile;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.types.Type;
import io.floe.format.util.WeightedCache;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reads one segment lazily: the Puffin footer when first needed, then the directory and the files
 * blob, then only the pages a lookup needs (the last few are kept, and decoded pages are shared by
 * all readers of the JVM, see {@code SHARED_PAGES}). A reader opened with {@link #openShared} also
 * takes the footer, directory and files blob from the JVM's readers of the same segment file
 * ({@code SHARED_HEADS}), so that planning an unchanged table's next query reads only the pages it
 * has not decoded yet. Not thread-safe; open one per thread. Every failure is an {@link IndexException} naming the table, the index and the file.
 * <pre>
 *   IndexSegmentReader reader = IndexSegmentReader.open(table, index, segment, keyType, io.newInputFile(path));
 *   MatchingFiles matches = reader.lookup(boundFilter);
 * </pre>
 */
public final class IndexSegmentReader {
  private static final int CACHED_PAGES = 16;
  /** A decoded page takes a few times its uncompressed bytes (boxed keys, bitmaps)... */
  private static final long PAGE_BYTES_FACTOR = 3;
  /** ... plus this much per entry. */
  private static final long PAGE_ENTRY_OVERHEAD = 96;

  /**
   * Everything a decoded page depends on: the segment file (never rewritten in place: a new segment
   * gets a new name), the page, and how it is read (index type, key type, covered file count).
   */
  private record PageKey(String path, long fileSize, int page, IndexType type, String keyType, int fileCount) {}

  /**
   * Pages decoded by any reader in this JVM, so that the next query looking up the same keys decodes
   * no page again: at most a thirty-second of the maximum heap, a page unused for a minute dropped.
   */
  private static final WeightedCache<PageKey, IndexPage> SHARED_PAGES = new WeightedCache<>(
      Runtime.getRuntime().maxMemory() / 32, TimeUnit.SECONDS.toNanos(60), System::nanoTime);

  /**
   * The parts of a segment every lookup reads first: the footer's three blobs, the directory and the
   * covered files, decoded and checked against the index list's entry for the segment.
   */
  private record Head(BlobMetadata filesBlob, BlobMetadata directoryBlob, BlobMetadata pagesBlob,
      IndexDirectory directory, CoveredFiles files) {
    /** Estimated heap: each path twice (string and ordinal map), each page's reference and keys. */
    long weight() {
      long paths = 0;
      for (String path : files.paths()) {
        paths += 2L * path.length() + 96;
      }
      return 1024 + paths + 256L * directory.pages().size();
    }
  }

  /** Heads of segments opened with {@link #openShared} in this JVM, as {@code SHARED_PAGES}. */
  private static final WeightedCache<PageKey, Head> SHARED_HEADS = new WeightedCache<>(
      Runtime.getRuntime().maxMemory() / 64, TimeUnit.SECONDS.toNanos(60), System::nanoTime);

  private final String table;
  private final TableIndex index;
  private final IndexSegment segment;
  private final Type keyType;
  private final InputFile file;
  private final PuffinReader puffin;
  private final boolean sharedHead;
  private BlobMetadata filesBlob;
  private BlobMetadata directoryBlob;
  private BlobMetadata pagesBlob;
  private IndexDirectory directory;
  private CoveredFiles files;
  private final Map<Integer, IndexPage> pages = new LinkedHashMap<>(CACHED_PAGES, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Integer, IndexPage> eldest) {
      return size() > CACHED_PAGES;
    }
  };

  private IndexSegmentReader(String table, TableIndex index, IndexSegment segment, Type keyType, InputFile file,
      boolean sharedHead) {
    this.sharedHead = sharedHead;
    this.table = Objects.requireNonNull(table, "Table name is null");
    this.index = Objects.requireNonNull(index, "Index is null");
    this.segment = Objects.requireNonNull(segment, "Segment is null");
    this.keyType = Objects.requireNonNull(keyType, "Key type is null");
    this.file = file;
    this.puffin = Puffin.read(file).withFileSize(segment.fileSizeInBytes()).build();
  }

  /**
   * A reader of {@code segment} of {@code index} on {@code table} (named in errors); keys are read as
   * {@code keyType}, the indexed column's current type. Nothing is read until it is needed.
   */
  public static IndexSegmentReader open(String table, TableIndex index, IndexSegment segment, Type keyType,
      InputFile file) {
    return new IndexSegmentReader(table, index, segment, keyType, file, false);
  }

  /**
   * As {@link #open}, sharing the segment's footer, directory and covered files with the other
   * readers this JVM opened this way (for query planning: a segment file is never rewritten).
   */
  public static IndexSegmentReader openShared(String table, TableIndex index, IndexSegment segment, Type keyType,
      InputFile file) {
    return new IndexSegmentReader(table, index, segment, keyType, file, true);
  }

  public IndexSegment segment() {
    return segment;
  }

  public TableIndex index() {
    return index;
  }

  /** The data files this segment covers. */
  public CoveredFiles coveredFiles() {
    if (files == null && sharedHead) {
      adoptSharedHead();
    }
    if (files == null) {
      byte[] bytes = read(() -> puffin.readBlob(blob(IndexBlobTypes.FILES)));
      files = guard(() -> CoveredFiles.fromBytes(bytes));
      if (files.size() != segment.coveredFileCount()) {
        throw corrupt(IndexBlobTypes.FILES, segment.coveredFileCount() + " files (as the index list says)",
            String.valueOf(files.size()));
      }
    }
    return files;
  }

  /**
   * The covered files that may hold a row matching {@code boundFilter}, an expression bound to the
   * table schema. Predicates on other columns, and any the index cannot answer, match every covered file.
   */
  public MatchingFiles lookup(Expression boundFilter) {
    Expression filter = Expressions.rewriteNot(boundFilter);
    CoveredFiles covered = coveredFiles();
    RoaringBitmap ordinals = new IndexLookup(this, index.sourceFieldId()).evaluate(filter);
    return new MatchingFiles(covered, ordinals);
  }

  IndexDirectory directory() {
    if (directory == null && sharedHead) {
      adoptSharedHead();
    }
    if (directory == null) {
      byte[] bytes = read(() -> puffin.readBlob(blob(IndexBlobTypes.DIRECTORY)));
      directory = guard(() -> IndexDirectory.fromBytes(bytes, keyType));
      if (directory.type() != index.type()) {
        throw corrupt(IndexBlobTypes.DIRECTORY, "index type " + index.type().typeName(),
            directory.type().typeName());
      }
      if (directory.fileCount() != segment.coveredFileCount()) {
        throw corrupt(IndexBlobTypes.DIRECTORY, segment.coveredFileCount() + " covered files",
            String.valueOf(directory.fileCount()));
      }
    }
    return directory;
  }

  /** Takes the head of this segment from {@code SHARED_HEADS}, reading and checking it there first. */
  private void adoptSharedHead() {
    PageKey key = new PageKey(segment.path(), segment.fileSizeInBytes(), -1, index.type(), keyType.toString(),
        segment.coveredFileCount());
    Head head = SHARED_HEADS.get(key, () -> {
      IndexSegmentReader own = open(table, index, segment, keyType, file);
      CoveredFiles covered = own.coveredFiles();
      IndexDirectory dir = own.directory();
      return new Head(own.filesBlob, own.directoryBlob, own.pagesBlob, dir, covered);
    }, Head::weight);
    filesBlob = head.filesBlob();
    directoryBlob = head.directoryBlob();
    pagesBlob = head.pagesBlob();
    directory = head.directory();
    files = head.files();
  }

  int fileCount() {
    return directory().fileCount();
  }

  IndexPage page(int number) {
    IndexPage page = pages.get(number);
    if (page == null) {
      IndexDirectory.PageRef ref = directory().pages().get(number);
      PageKey key = new PageKey(segment.path(), segment.fileSizeInBytes(), number, index.type(), keyType.toString(),
          fileCount());
      page = SHARED_PAGES.get(key, () -> decodePage(number, ref),
          decoded -> (long) ref.length() * PAGE_BYTES_FACTOR + (long) decoded.size() * PAGE_ENTRY_OVERHEAD);
      pages.put(number, page);
    }
    return page;
  }

  /** Reads, decodes and checks page {@code number}, which the directory describes as {@code ref}. */
  private IndexPage decodePage(int number, IndexDirectory.PageRef ref) {
    BlobMetadata blob = blob(IndexBlobTypes.PAGES);
    if (ref.offset() + ref.storedLength() > blob.length()) {
      throw corrupt("page " + number, "a page within the " + blob.length() + " bytes of the pages blob",
          "offset " + ref.offset() + ", length " + ref.storedLength());
    }
    byte[] stored = read(() -> puffin.readRange(blob.offset() + ref.offset(), ref.storedLength()));
    byte[] body = guard(() -> IndexPage.decompress(stored, ref.length(), "page " + number));
    IndexPage page = guard(() -> IndexPage.decode(index.type(), keyType, body, fileCount(), "page " + number));
    if (page.size() != ref.entries() || IndexKeys.ORDER.compare(page.key(0), ref.firstKey()) != 0
        || IndexKeys.ORDER.compare(page.key(page.size() - 1), ref.lastKey()) != 0) {
      throw corrupt("page " + number, ref.entries() + " keys from " + ref.firstKey() + " to " + ref.lastKey()
          + " (as the directory says)", page.size() + " keys from " + page.key(0) + " to "
          + page.key(page.size() - 1));
    }
    return page;
  }

  /** How many pages the segment holds. */
  int pageCount() {
    return directory().pages().size();
  }

  /**
   * Page {@code number}, read and decoded for a merge, which reads every page once in key order: it
   * neither uses nor fills the pages shared with lookups.
   */
  IndexPage readPage(int number) {
    return decodePage(number, directory().pages().get(number));
  }

  /** The footer entry of the blob of {@code type}, after checking the footer lists exactly the three blobs. */
  private BlobMetadata blob(String type) {
    if (directoryBlob == null) {
      BlobMetadata files = null;
      BlobMetadata dir = null;
      BlobMetadata pageBlob = null;
      for (BlobMetadata blob : read(() -> puffin.fileMetadata().blobs())) {
        switch (blob.type()) {
          case IndexBlobTypes.FILES -> files = only(files, blob);
          case IndexBlobTypes.DIRECTORY -> dir = only(dir, blob);
          case IndexBlobTypes.PAGES -> pageBlob = only(pageBlob, blob);
          default -> throw corrupt("blob at offset " + blob.offset(), "blob types " + IndexBlobTypes.FILES + ", "
              + IndexBlobTypes.DIRECTORY + " and " + IndexBlobTypes.PAGES, blob.type()
              + " (written by a newer Floe?)");
        }
      }
      if (files == null || dir == null || pageBlob == null) {
        throw corrupt("footer", "one blob each of " + IndexBlobTypes.FILES + ", " + IndexBlobTypes.DIRECTORY
            + " and " + IndexBlobTypes.PAGES, "a footer without them all");
      }
      if (pageBlob.compressionCodec() != null) {
        throw corrupt(IndexBlobTypes.PAGES, "an uncompressed blob (pages are compressed one by one)",
            pageBlob.compressionCodec());
      }
      filesBlob = files;
      pagesBlob = pageBlob;
      directoryBlob = dir;
    }
    return switch (type) {
      case IndexBlobTypes.FILES -> filesBlob;
      case IndexBlobTypes.DIRECTORY -> directoryBlob;
      default -> pagesBlob;
    };
  }

  private BlobMetadata only(BlobMetadata seen, BlobMetadata blob) {
    if (seen != null) {
      throw corrupt("blob at offset " + blob.offset(), "one " + blob.type() + " blob", "two");
    }
    return blob;
  }

  /** Reads through Puffin, turning missing files and Puffin layout errors into index errors. */
  private <T> T read(Supplier<T> action) {
    try {
      return action.get();
    } catch (IndexException e) {
      throw e;
    } catch (FloeFormatException | UncheckedIOException e) {
      throw IndexErrors.unreadableSegment(table, index.name(), segment.path(), e.getMessage(), e);
    }
  }

  /** Parses a blob, turning layout errors into index errors. */
  private <T> T guard(Supplier<T> action) {
    try {
      return action.get();
    } catch (BlobBytes.Malformed e) {
      throw IndexErrors.corruptSegment(table, index.name(), segment.path(), e.where, e.expected, e.found);
    }
  }

  private IndexException corrupt(String where, String expected, String found) {
    return IndexErrors.corruptSegment(table, index.name(), segment.path(), where, expected, found);
  }
}
