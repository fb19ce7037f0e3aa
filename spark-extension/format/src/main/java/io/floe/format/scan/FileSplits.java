package io.floe.format.scan;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits one data file into byte ranges that separate tasks read, so that a large file is not read
 * by one core while the others wait (as Spark splits a plain Parquet file and Iceberg splits a
 * {@code FileScanTask}). Ranges tile the file, [0, file size), with no gap or overlap; a Parquet
 * reader keeps the row groups whose midpoint falls in its range, so every row group is read by
 * exactly one range whatever the boundaries.
 *
 * <p>When the file's {@code split_offsets} (row-group starts, from its manifest entry) are known and
 * valid, ranges start at those offsets and hold whole row groups of together about {@code target}
 * bytes. Otherwise ranges are {@code target} bytes each, but never smaller than {@code minimum}
 * (a tiny split size must not cut a file into thousands of ranges that read nothing).
 */
public final class FileSplits {
  /** One range of a file: {@code length} bytes from {@code start}. */
  public record Range(long start, long length) {
    public Range {
      if (start < 0 || length <= 0) {
        throw new IllegalArgumentException("Invalid range: start " + start + ", length " + length);
      }
    }
  }

  private FileSplits() {}

  /**
   * The ranges of a file of {@code fileSize} bytes for splits of about {@code target} bytes; one
   * range, the whole file, when it is not larger than {@code target} (or {@code minimum} when
   * there are no usable offsets).
   *
   * @param splitOffsets the file's row-group starts, or null when unknown
   */
  public static List<Range> split(long fileSize, List<Long> splitOffsets, long target, long minimum) {
    if (fileSize <= 0 || target <= 0) {
      throw new IllegalArgumentException("Invalid split of a file of " + fileSize + " bytes into "
          + target + "-byte ranges");
    }
    if (fileSize <= target) {
      return List.of(new Range(0, fileSize));
    }
    if (usable(splitOffsets, fileSize)) {
      return byOffsets(fileSize, splitOffsets, target);
    }
    long size = Math.max(target, minimum);
    List<Range> ranges = new ArrayList<>();
    for (long start = 0; start < fileSize; start += size) {
      ranges.add(new Range(start, Math.min(size, fileSize - start)));
    }
    return ranges;
  }

  /** Whole row groups per range: a new range starts at the first offset at least {@code target} past the last start. */
  private static List<Range> byOffsets(long fileSize, List<Long> offsets, long target) {
    List<Range> ranges = new ArrayList<>();
    long start = 0;
    for (int i = 1; i < offsets.size(); i++) {
      long offset = offsets.get(i);
      if (offset - start >= target) {
        ranges.add(new Range(start, offset - start));
        start = offset;
      }
    }
    ranges.add(new Range(start, fileSize - start));
    return ranges;
  }

  /** Offsets that are strictly ascending and inside the file; any other list is ignored. */
  private static boolean usable(List<Long> offsets, long fileSize) {
    if (offsets == null || offsets.isEmpty()) {
      return false;
    }
    long previous = -1;
    for (Long offset : offsets) {
      if (offset == null || offset <= previous || offset >= fileSize) {
        return false;
      }
      previous = offset;
    }
    return true;
  }
}
