package io.floe.format.scan;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.floe.format.scan.FileSplits.Range;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** How a data file is cut into ranges for parallel reads: tiling, row-group alignment, fallbacks. */
public class TestFileSplits {
  private static final long MB = 1L << 20;

  @Test
  public void aFileNoLargerThanTheTargetIsOneRange() {
    assertEquals(List.of(new Range(0, 10 * MB)), FileSplits.split(10 * MB, List.of(4L), 10 * MB, 4 * MB));
    assertEquals(List.of(new Range(0, 5)), FileSplits.split(5, null, 10 * MB, 4 * MB));
  }

  @Test
  public void rangesStartAtRowGroupsAndHoldAboutTheTarget() {
    // row groups of 3 MB from offset 4: starts 4, 3M+4, 6M+4, 9M+4, 12M+4; file ends at 15M+100
    List<Long> offsets = List.of(4L, 3 * MB + 4, 6 * MB + 4, 9 * MB + 4, 12 * MB + 4);
    List<Range> ranges = FileSplits.split(15 * MB + 100, offsets, 6 * MB, 4 * MB);
    assertEquals(List.of(new Range(0, 6 * MB + 4), new Range(6 * MB + 4, 6 * MB),
        new Range(12 * MB + 4, 3 * MB + 96)), ranges);
    assertTiles(ranges, 15 * MB + 100);
  }

  @Test
  public void oneRowGroupLargerThanTheTargetIsNotCut() {
    List<Range> ranges = FileSplits.split(20 * MB, List.of(4L, 18 * MB), 2 * MB, 4 * MB);
    assertEquals(List.of(new Range(0, 18 * MB), new Range(18 * MB, 2 * MB)), ranges);
  }

  @Test
  public void withoutOffsetsRangesAreFixedSizeButNeverTiny() {
    List<Range> ranges = FileSplits.split(10 * MB + 1, null, 4 * MB, 1);
    assertEquals(List.of(new Range(0, 4 * MB), new Range(4 * MB, 4 * MB), new Range(8 * MB, 2 * MB + 1)), ranges);
    // a 1-byte target falls back to the minimum, not ten million ranges
    List<Range> floor = FileSplits.split(10 * MB, List.of(), 1, 4 * MB);
    assertEquals(3, floor.size());
    assertTiles(floor, 10 * MB);
  }

  @Test
  public void invalidOffsetsAreIgnored() {
    for (List<Long> bad : List.of(List.of(4L, 2L), List.of(4L, 30 * MB), Arrays.asList(4L, null), List.of(4L, 4L))) {
      List<Range> ranges = FileSplits.split(12 * MB, bad, 4 * MB, 4 * MB);
      assertEquals(String.valueOf(bad), 3, ranges.size());
      assertTiles(ranges, 12 * MB);
    }
  }

  @Test
  public void rejectsNonsense() {
    assertThrows(IllegalArgumentException.class, () -> FileSplits.split(0, null, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> FileSplits.split(10, null, 0, 1));
  }

  private static void assertTiles(List<Range> ranges, long fileSize) {
    long next = 0;
    for (Range r : ranges) {
      assertEquals(next, r.start());
      next = r.start() + r.length();
    }
    assertEquals(fileSize, next);
  }
}
