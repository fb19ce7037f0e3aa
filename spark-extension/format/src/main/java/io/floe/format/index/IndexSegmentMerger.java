package io.floe.format.index;

import io.floe.format.io.OutputFile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

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
   * The segments a commit merges (as Iceberg merges manifests once {@code commit.manifest.min-count-to-merge}
   * accumulate): none while {@code index} has fewer than {@code minSegmentsToMerge}, else the smallest
   * ones (by keys, then covered files) that fit {@code limits} together, if at least two do.
   */
  public static List<IndexSegment> segmentsToMerge(TableIndex index, int minSegmentsToMerge, Limits limits) {
    if (minSegmentsToMerge < 2) {
      throw new IllegalArgumentException("Invalid minimum number of segments to merge: " + minSegmentsToMerge);
    }
    if (index.segments().size() < minSegmentsToMerge) {
      return List.of();
    }
    List<IndexSegment> bySize = new ArrayList<>(index.segments());
    bySize.sort(Comparator.comparingLong(IndexSegment::entryCount).thenComparingInt(IndexSegment::coveredFileCount));
    List<IndexSegment> picked = new ArrayList<>();
    long entries = 0;
    long files = 0;
    for (IndexSegment segment : bySize) {
      if (entries + segment.entryCount() > limits.maxEntries()
          || files + segment.coveredFileCount() > limits.maxFiles()) {
        break;
      }
      picked.add(segment);
      entries += segment.entryCount();
      files += segment.coveredFileCount();
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
   */
  public static IndexSegment merge(List<IndexSegmentReader> segments, Set<String> liveFiles,
      IndexSegmentWriter writer, OutputFile out) {
    for (IndexSegmentReader reader : segments) {
      CoveredFiles covered = reader.coveredFiles();
      int[] newOrdinal = new int[covered.size()];
      for (int i = 0; i < covered.size(); i++) {
        String path = covered.path(i);
        newOrdinal[i] = liveFiles == null || liveFiles.contains(path) ? writer.cover(path) : -1;
      }
      reader.directory().nullFiles().forEach((int ordinal) -> {
        if (newOrdinal[ordinal] >= 0) {
          writer.addNull(newOrdinal[ordinal]);
        }
      });
      reader.forEachEntry((key, files) -> files.forEach((int ordinal) -> {
        if (newOrdinal[ordinal] >= 0) {
          writer.addEntry(key, newOrdinal[ordinal]);
        }
      }));
    }
    return writer.write(out);
  }
}
