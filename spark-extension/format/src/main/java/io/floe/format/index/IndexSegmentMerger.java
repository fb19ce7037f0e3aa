package io.floe.format.index;

import io.floe.format.io.OutputFile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Merges segments of one index into one, as Lance merges delta indices: keys and coverage are
 * united, and files no longer live in the table drop out (their entries with them). Facts about a
 * file hold forever, so merging never needs the data files themselves.
 * <pre>
 *   List<IndexSegment> picked = IndexSegmentMerger.segmentsToMerge(index, 16, Limits.DEFAULT);
 *   IndexSegment merged = IndexSegmentMerger.merge(readersOf(picked), liveFiles, writer, out);
 *   TableIndex next = TableIndex.buildFrom(index).replaceSegments(picked, merged).build();
 * </pre>
 */
public final class IndexSegmentMerger {
  private IndexSegmentMerger() {}

  /**
   * How much one merge may hold: the sums of the merged segments' keys and covered files. A merge
   * builds its segment in memory, so these bound its memory; the default files limit is the size
   * of the segments an index build writes.
   */
  public record Limits(long maxEntries, int maxFiles) {
    public static final Limits DEFAULT = new Limits(2_000_000L, 1000);

    public Limits {
      if (maxEntries < 1 || maxFiles < 1) {
        throw new IllegalArgumentException("Invalid merge limits: " + maxEntries + " entries, " + maxFiles + " files");
      }
    }
  }

  /**
   * How many times the bytes of the segments picked before it (together) a segment may hold and still
   * be picked, once two are: a commit's merge does not rewrite a segment much larger than the smaller
   * ones it absorbs (a build's segment over a column with many values, say), as in size-tiered
   * merging, so a merge costs about what those smaller segments do. The two smallest are always
   * picked (within the limits), so one small segment never keeps the others from merging.
   */
  public static final int MAX_SIZE_OVER_PICKED = 2;

  /**
   * The segments a commit merges (as Iceberg merges manifests once {@code commit.manifest.min-count-to-merge}
   * accumulate): none while {@code index} has fewer than {@code minSegmentsToMerge}, else the smallest
   * ones (by bytes, then keys, then covered files) that fit {@code limits} together, each after the
   * second at most {@link #MAX_SIZE_OVER_PICKED} times the bytes of the smaller ones picked, if at
   * least two do.
   */
  public static List<IndexSegment> segmentsToMerge(TableIndex index, int minSegmentsToMerge, Limits limits) {
    if (minSegmentsToMerge < 2) {
      throw new IllegalArgumentException("Invalid minimum number of segments to merge: " + minSegmentsToMerge);
    }
    if (index.segments().size() < minSegmentsToMerge) {
      return List.of();
    }
    List<IndexSegment> bySize = new ArrayList<>(index.segments());
    bySize.sort(Comparator.comparingLong(IndexSegment::fileSizeInBytes).thenComparingLong(IndexSegment::entryCount)
        .thenComparingInt(IndexSegment::coveredFileCount));
    List<IndexSegment> picked = new ArrayList<>();
    long entries = 0;
    long files = 0;
    long bytes = 0;
    for (IndexSegment segment : bySize) {
      if (entries + segment.entryCount() > limits.maxEntries()
          || files + segment.coveredFileCount() > limits.maxFiles()
          || (picked.size() >= 2 && segment.fileSizeInBytes() > MAX_SIZE_OVER_PICKED * bytes)) {
        break;
      }
      picked.add(segment);
      entries += segment.entryCount();
      files += segment.coveredFileCount();
      bytes += segment.fileSizeInBytes();
    }
    return picked.size() < 2 ? List.of() : List.copyOf(picked);
  }

  /**
   * {@code segments}, in order, packed into groups that each fit {@code limits}, for a merge of every
   * segment (rewrite_index) that stays bounded in memory: one merged segment per group. A segment
   * over the limits on its own is a group of its own (merging it alone costs what writing it did).
   */
  public static List<List<IndexSegment>> bins(List<IndexSegment> segments, Limits limits) {
    List<List<IndexSegment>> bins = new ArrayList<>();
    List<IndexSegment> bin = new ArrayList<>();
    long entries = 0;
    long files = 0;
    for (IndexSegment segment : segments) {
      if (!bin.isEmpty() && (entries + segment.entryCount() > limits.maxEntries()
          || files + segment.coveredFileCount() > limits.maxFiles())) {
        bins.add(List.copyOf(bin));
        bin.clear();
        entries = 0;
        files = 0;
      }
      bin.add(segment);
      entries += segment.entryCount();
      files += segment.coveredFileCount();
    }
    if (!bin.isEmpty()) {
      bins.add(List.copyOf(bin));
    }
    return bins;
  }

  /**
   * Writes the union of {@code segments} with {@code writer} to {@code out}, keeping only files in
   * {@code liveFiles} (the data files of the snapshots the index must serve); null keeps every file.
   * Other than integral keys, the segments' keys are merged as they are read, each segment's pages
   * in key order (a heap of the segments by their next key), so the union reaches the writer sorted
   * and no entry is sorted again. Integral keys are added segment by segment: the writer's radix
   * sort of primitive longs costs less than a heap of boxed keys.
   */
  public static IndexSegment merge(List<IndexSegmentReader> segments, Set<String> liveFiles,
      IndexSegmentWriter writer, OutputFile out) {
    Cursor[] heap = new Cursor[segments.size()];
    int size = 0;
    int covers = 0;
    for (int s = 0; s < segments.size(); s++) {
      IndexSegmentReader reader = segments.get(s);
      CoveredFiles covered = reader.coveredFiles();
      int[] newOrdinal = new int[covered.size()];
      for (int i = 0; i < covered.size(); i++) {
        String path = covered.path(i);
        newOrdinal[i] = liveFiles == null || liveFiles.contains(path) ? writer.cover(path) : -1;
      }
      covers += covered.size();
      reader.directory().nullFiles().forEach((int ordinal) -> {
        if (newOrdinal[ordinal] >= 0) {
          writer.addNull(newOrdinal[ordinal]);
        }
      });
      Cursor cursor = new Cursor(s, reader, newOrdinal);
      if (cursor.next()) {
        heap[size++] = cursor;
      }
    }
    if (writer.integralKeys()) {
      for (int c = 0; c < size; c++) {
        Cursor cursor = heap[c];
        do {
          Object key = cursor.key();
          for (PeekableIntIterator it = cursor.files().getIntIterator(); it.hasNext();) {
            int ordinal = cursor.newOrdinal[it.next()];
            if (ordinal >= 0) {
              writer.addEntry(key, ordinal);
            }
          }
        } while (cursor.next());
      }
      return writer.write(out);
    }
    for (int i = size / 2 - 1; i >= 0; i--) {
      siftDown(heap, size, i);
    }
    int[] ordinals = new int[covers]; // a key's files: at most every file of every segment
    while (size > 0) {
      Object key = heap[0].key();
      int count = 0;
      do { // each segment holding the key, in segment order; a segment's next key is above it
        Cursor top = heap[0];
        for (PeekableIntIterator it = top.files().getIntIterator(); it.hasNext();) {
          int ordinal = top.newOrdinal[it.next()];
          if (ordinal >= 0) {
            ordinals[count++] = ordinal;
          }
        }
        if (!top.next()) {
          heap[0] = heap[--size];
        }
        siftDown(heap, size, 0);
      } while (size > 0 && IndexKeys.ORDER.compare(heap[0].key(), key) == 0);
      if (count > 0) {
        writer.addInOrder(key, ordinals, count);
      }
    }
    return writer.write(out);
  }

  private static void siftDown(Cursor[] heap, int size, int from) {
    if (size == 0) {
      return;
    }
    int i = from;
    Cursor cursor = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && heap[child + 1].before(heap[child])) {
        child++;
      }
      if (!heap[child].before(cursor)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = cursor;
  }

  /** Where a merge is in one segment: its current key and files, page by page. */
  private static final class Cursor {
    private final int segment;
    private final IndexSegmentReader reader;
    private final int[] newOrdinal;
    private int pageNumber = -1;
    private IndexPage page;
    private int entry;

    Cursor(int segment, IndexSegmentReader reader, int[] newOrdinal) {
      this.segment = segment;
      this.reader = reader;
      this.newOrdinal = newOrdinal;
    }

    /** Moves to the next key, reading the next page when this one is done; false after the last. */
    boolean next() {
      entry++;
      while (page == null || entry >= page.size()) {
        if (pageNumber + 1 >= reader.pageCount()) {
          page = null;
          return false;
        }
        page = reader.readPage(++pageNumber);
        entry = 0;
      }
      return true;
    }

    /** Whether this cursor's key comes first: a lower key, or the same in an earlier segment. */
    boolean before(Cursor other) {
      int cmp = IndexKeys.ORDER.compare(key(), other.key());
      return cmp < 0 || (cmp == 0 && segment < other.segment);
    }

    Object key() {
      return page.key(entry);
    }

    RoaringBitmap files() {
      return page.files(entry);
    }
  }
}
