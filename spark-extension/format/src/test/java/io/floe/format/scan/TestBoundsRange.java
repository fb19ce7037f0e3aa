package io.floe.format.scan;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.BoundsRange.Rules;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The min/max fold over files' bounds, and where the exact and the statistics rules differ. */
public class TestBoundsRange {
  private static final Type LONG = Types.LongType.get();
  private static final Type DOUBLE = Types.DoubleType.get();
  private static final int ID = 1;
  private static final PartitionSpec SPEC = PartitionSpec.unpartitioned();
  private static final Rules[] BOTH = {Rules.EXACT, Rules.STATISTICS};

  /** A file of {@code rows} rows with column 1's counts and bounds (each may be null: not recorded). */
  private static FileScanTask file(Type type, long rows, Long values, Long nulls, Long nans, Object lower,
      Object upper) {
    Map<Integer, Long> valueCounts = new HashMap<>();
    Map<Integer, Long> nullCounts = new HashMap<>();
    Map<Integer, Long> nanCounts = new HashMap<>();
    Map<Integer, ByteBuffer> lowers = new HashMap<>();
    Map<Integer, ByteBuffer> uppers = new HashMap<>();
    put(valueCounts, values);
    put(nullCounts, nulls);
    put(nanCounts, nans);
    put(lowers, lower == null ? null : Conversions.toByteBuffer(type, lower));
    put(uppers, upper == null ? null : Conversions.toByteBuffer(type, upper));
    DataFile file = DataFile.builder(SPEC).withPath("f-" + rows + "-" + lower).withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.empty()).withFileSizeInBytes(100)
        .withMetrics(new Metrics(rows, null, valueCounts, nullCounts, nanCounts, lowers, uppers)).build();
    return new FileScanTask(file, List.of(), SPEC, 1L);
  }

  private static <V> void put(Map<Integer, V> map, V value) {
    if (value != null) {
      map.put(ID, value);
    }
  }

  @Test
  public void foldsBoundsAndSkipsFilesOfOnlyNulls() {
    List<FileScanTask> tasks = List.of(file(LONG, 10, 10L, 0L, null, 5L, 40L),
        file(LONG, 4, 4L, 4L, null, null, null), file(LONG, 7, 7L, 1L, null, -3L, 12L));
    for (Rules rules : BOTH) {
      assertArrayEquals(new Object[] {-3L, 40L}, BoundsRange.of(LONG, tasks, ID, rules));
    }
  }

  @Test
  public void noValuesGiveNullMinAndMax() {
    for (Rules rules : BOTH) {
      assertArrayEquals(new Object[] {null, null}, BoundsRange.of(LONG, List.of(), ID, rules));
      assertArrayEquals(new Object[] {null, null},
          BoundsRange.of(LONG, List.of(file(LONG, 3, 3L, 3L, null, null, null)), ID, rules));
    }
  }

  @Test
  public void aMissingBoundOrUnknownCountsOnAFileWithValuesIsUnknown() {
    for (Rules rules : BOTH) {
      assertNull(BoundsRange.of(LONG, List.of(file(LONG, 5, 5L, 0L, null, 1L, null)), ID, rules));
      assertNull(BoundsRange.of(LONG, List.of(file(LONG, 5, 5L, 0L, null, null, 9L)), ID, rules));
      assertNull(BoundsRange.of(LONG, List.of(file(LONG, 5, null, null, null, null, null)), ID, rules));
    }
  }

  @Test
  public void emptyFilesAreSkippedOnlyByTheExactRules() {
    List<FileScanTask> tasks = List.of(file(LONG, 0, null, null, null, null, null),
        file(LONG, 2, 2L, 0L, null, 1L, 2L));
    assertArrayEquals(new Object[] {1L, 2L}, BoundsRange.of(LONG, tasks, ID, Rules.EXACT));
    assertNull(BoundsRange.of(LONG, tasks, ID, Rules.STATISTICS));
  }

  @Test
  public void floatingColumnsNeedAKnownNanCountOfZero() {
    List<FileScanTask> clean = List.of(file(DOUBLE, 3, 3L, 0L, 0L, -1.5d, 2.5d));
    List<FileScanTask> nan = List.of(file(DOUBLE, 3, 3L, 0L, 1L, -1.5d, 2.5d));
    List<FileScanTask> unknown = List.of(file(DOUBLE, 3, 3L, 0L, null, -1.5d, 2.5d));
    for (Rules rules : BOTH) {
      assertArrayEquals(new Object[] {-1.5d, 2.5d}, BoundsRange.of(DOUBLE, clean, ID, rules));
      assertNull(BoundsRange.of(DOUBLE, nan, ID, rules));
      assertNull(BoundsRange.of(DOUBLE, unknown, ID, rules));
    }
  }

  @Test
  public void onlyTheStatisticsRulesWantNanCountsOnFilesOfOnlyNulls() {
    List<FileScanTask> tasks = List.of(file(DOUBLE, 2, 2L, 2L, null, null, null),
        file(DOUBLE, 3, 3L, 0L, 0L, 1.0d, 4.0d));
    assertArrayEquals(new Object[] {1.0d, 4.0d}, BoundsRange.of(DOUBLE, tasks, ID, Rules.EXACT));
    assertNull(BoundsRange.of(DOUBLE, tasks, ID, Rules.STATISTICS));
  }

  @Test
  public void onlyTheExactRulesRefuseANegativeNanCount() {
    List<FileScanTask> tasks = List.of(file(DOUBLE, 3, 3L, 0L, -1L, 1.0d, 4.0d));
    assertNull(BoundsRange.of(DOUBLE, tasks, ID, Rules.EXACT));
    assertArrayEquals(new Object[] {1.0d, 4.0d}, BoundsRange.of(DOUBLE, tasks, ID, Rules.STATISTICS));
  }

  @Test
  public void exactBoundsAreThoseOfNumericAndTemporalTypes() {
    assertTrue(BoundsRange.hasExactBounds(Types.DateType.get()));
    assertTrue(BoundsRange.hasExactBounds(Types.DecimalType.of(10, 2)));
    assertTrue(BoundsRange.hasExactBounds(Types.BooleanType.get()));
    assertFalse(BoundsRange.hasExactBounds(Types.StringType.get()));
    assertFalse(BoundsRange.hasExactBounds(Types.BinaryType.get()));
  }
}
