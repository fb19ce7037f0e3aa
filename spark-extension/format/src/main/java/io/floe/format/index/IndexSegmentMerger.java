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
 *   List<IndexSegment> picked = IndexSegmentMerger.segmentsToMerge(index, maxSegments);
 *   IndexSegment merged = IndexSegmentMerger.merge(readersOf(picked), liveFiles, writer, out);
 *   TableIndex next = TableIndex.buildFrom(index).replaceSegments(picked, merged).build();
 * </pre>
 */
public final class IndexSegmentMerger {
  private IndexSegmentMerger() {}

  /**
   * The segments to merge so that {@code index} keeps at most {@code maxSegments}: none while it has
   * no more, else the smallest ones (by covered files), enough that merging them into one is enough.
   */
  public static List<IndexSegment> segmentsToMerge(TableIndex index, int maxSegments) {
    if (maxSegments < 1) {
      throw new IllegalArgumentException("Invalid maximum number of segments: " + maxSegments);
    }
    int excess = index.segments().size() - maxSegments;
    if (excess <= 0) {
      return List.of();
    }
    List<IndexSegment> bySize = new ArrayList<>(index.segments());
    bySize.sort(Comparator.comparingInt(IndexSegment::coveredFileCount));
    return List.copyOf(bySize.subList(0, excess + 1));
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
