package io.floe.format.index;

import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * The answer of one segment to a filter: which of its covered files may hold a matching row. A file
 * the segment does not cover may always match; only a covered file outside the answer can be skipped.
 */
public final class MatchingFiles {
  private final CoveredFiles covered;
  private final RoaringBitmap ordinals;

  MatchingFiles(CoveredFiles covered, RoaringBitmap ordinals) {
    this.covered = covered;
    this.ordinals = ordinals;
  }

  public CoveredFiles coveredFiles() {
    return covered;
  }

  /** False only when the segment covers {@code path} and says it holds no match. */
  public boolean mayMatch(String path) {
    int ordinal = covered.ordinal(path);
    return ordinal < 0 || ordinals.contains(ordinal);
  }

  /** True when the segment covers {@code path} and says it holds no match. */
  public boolean canSkip(String path) {
    return !mayMatch(path);
  }

  /** The covered files that may match, in ordinal order. */
  public List<String> paths() {
    List<String> paths = new ArrayList<>(ordinals.getCardinality());
    ordinals.forEach((int ordinal) -> paths.add(covered.path(ordinal)));
    return paths;
  }

  /** How many covered files may match. */
  public int count() {
    return ordinals.getCardinality();
  }
}
