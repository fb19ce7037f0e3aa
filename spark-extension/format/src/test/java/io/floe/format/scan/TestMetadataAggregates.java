package io.floe.format.scan;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.MetadataAggregates.Aggregate;
import io.floe.format.scan.MetadataAggregates.Op;
import io.floe.format.scan.MetadataAggregates.Result;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** Which aggregates manifest metrics answer exactly, and the refusals that keep answers equal to a scan's. */
public class TestMetadataAggregates {
  private static final Types.NestedField ID = Types.NestedField.optional(1, "id", Types.LongType.get());
  private static final Types.NestedField D = Types.NestedField.optional(2, "d", Types.DateType.get());
  private static final Types.NestedField S = Types.NestedField.optional(3, "s", Types.StringType.get());
  private static final Types.NestedField X = Types.NestedField.optional(4, "x", Types.DoubleType.get());
  private static final PartitionSpec SPEC = PartitionSpec.unpartitioned();

  private static final Aggregate COUNT_STAR = new Aggregate(Op.COUNT_STAR, null);

  /** A file's metrics for one column: value count, null count, NaN count, bounds (each may be null). */
  private static final class Col {
    final Types.NestedField field;
    final Long values;
    final Long nulls;
    final Long nans;
    final Object lower;
    final Object upper;

    Col(Types.NestedField field, Long values, Long nulls, Long nans, Object lower, Object upper) {
      this.field = field;
      this.values = values;
      this.nulls = nulls;
      this.nans = nans;
      this.lower = lower;
      this.upper = upper;
    }
  }

  private static DataFile file(String path, long rows, Col... cols) {
    Map<Integer, Long> values = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Long> nans = new HashMap<>();
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    for (Col c : cols) {
      int id = c.field.fieldId();
      Type type = c.field.type();
      put(values, id, c.values);
      put(nulls, id, c.nulls);
      put(nans, id, c.nans);
      put(lower, id, c.lower == null ? null : Conversions.toByteBuffer(type, c.lower));
      put(upper, id, c.upper == null ? null : Conversions.toByteBuffer(type, c.upper));
    }
    return DataFile.builder(SPEC).withPath(path).withFormat(FileFormat.PARQUET).withPartition(PartitionData.empty())
        .withFileSizeInBytes(100).withMetrics(new Metrics(rows, null, values, nulls, nans, lower, upper)).build();
  }

  private static <V> void put(Map<Integer, V> map, int id, V value) {
    if (value != null) {
      map.put(id, value);
    }
  }

  private static FileScanTask task(DataFile file, DeleteFile... deletes) {
    return new FileScanTask(file, Arrays.asList(deletes), SPEC, 1L);
  }

  private static DeleteFile delete(FileContent content, FileFormat format, long rows) {
    DeleteFile.Builder b = DeleteFile.builder(SPEC).withContent(content).withPath("del-" + content + "-" + format)
        .withFormat(format).withPartition(PartitionData.empty()).withRecordCount(rows).withFileSizeInBytes(10);
    if (content == FileContent.EQUALITY_DELETES) {
      b.withEqualityFieldIds(List.of(1));
    } else {
      b.withReferencedDataFile("a");
    }
    if (format == FileFormat.PUFFIN) {
      b.withContentOffset(4L).withContentSizeInBytes(20L);
    }
    return b.build();
  }

  private static Result eval(List<FileScanTask> tasks, Aggregate... aggregates) {
    return MetadataAggregates.evaluate(tasks, List.of(aggregates));
  }

  private static List<Object> answer(List<FileScanTask> tasks, Aggregate... aggregates) {
    Result result = eval(tasks, aggregates);
    assertTrue("refused: " + result.refusal(), result.answered());
    return result.values();
  }

  private static final List<FileScanTask> TWO_FILES = List.of(
      task(file("a", 10, new Col(ID, 10L, 0L, null, 5L, 40L), new Col(D, 10L, 2L, null, 100, 200))),
      task(file("b", 7, new Col(ID, 7L, 1L, null, -3L, 12L), new Col(D, 7L, 0L, null, 150, 250))));

  @Test
  public void countMinMaxFromCountsAndBounds() {
    assertEquals(Arrays.asList(17L, 15L, 100, 250, -3L, 40L), answer(TWO_FILES, COUNT_STAR,
        new Aggregate(Op.COUNT, D), new Aggregate(Op.MIN, D), new Aggregate(Op.MAX, D),
        new Aggregate(Op.MIN, ID), new Aggregate(Op.MAX, ID)));
  }

  @Test
  public void noFilesCountZeroAndMinMaxNull() {
    assertEquals(Arrays.asList(0L, null, null), answer(List.of(), COUNT_STAR, new Aggregate(Op.MIN, D),
        new Aggregate(Op.MAX, D)));
  }

  @Test
  public void filesOfOnlyNullsNeedNoBoundsAndEmptyFilesAreSkipped() {
    List<FileScanTask> tasks = List.of(task(file("a", 4, new Col(D, 4L, 4L, null, null, null))),
        task(file("b", 0)), task(file("c", 3, new Col(D, 3L, 0L, null, 7, 9))));
    assertEquals(Arrays.asList(7L, 3L, 7, 9), answer(tasks, COUNT_STAR, new Aggregate(Op.COUNT, D),
        new Aggregate(Op.MIN, D), new Aggregate(Op.MAX, D)));
    List<FileScanTask> allNull = List.of(task(file("a", 4, new Col(D, 4L, 4L, null, null, null))));
    assertEquals(Arrays.asList(null, null), answer(allNull, new Aggregate(Op.MIN, D), new Aggregate(Op.MAX, D)));
  }

  @Test
  public void missingMetricsAreUnknownNotZero() {
    List<FileScanTask> noBounds = List.of(task(file("a", 10, new Col(D, 10L, 2L, null, null, null))));
    assertFalse(eval(noBounds, new Aggregate(Op.MAX, D)).answered());
    List<FileScanTask> noCounts = List.of(task(file("a", 10, new Col(D, null, null, null, 1, 2))));
    assertFalse(eval(noCounts, new Aggregate(Op.COUNT, D)).answered());
    assertEquals(Arrays.asList(1, 2), answer(noCounts, new Aggregate(Op.MIN, D), new Aggregate(Op.MAX, D)));
    List<FileScanTask> noColumn = List.of(task(file("a", 10)));
    assertFalse(eval(noColumn, new Aggregate(Op.MIN, D)).answered());
    assertEquals(List.of(10L), answer(noColumn, COUNT_STAR));
  }

  @Test
  public void deletionVectorsAreSubtractedFromCountStarOnly() {
    List<FileScanTask> tasks = List.of(task(TWO_FILES.get(0).file(), delete(FileContent.POSITION_DELETES,
        FileFormat.PUFFIN, 3)), TWO_FILES.get(1));
    assertEquals(List.of(14L), answer(tasks, COUNT_STAR));
    Result minMax = eval(tasks, COUNT_STAR, new Aggregate(Op.MIN, ID));
    assertFalse(minMax.answered());
    assertTrue(minMax.refusal(), minMax.refusal().contains("deletes"));
    assertFalse(eval(tasks, new Aggregate(Op.COUNT, ID)).answered());
  }

  @Test
  public void positionAndEqualityDeleteFilesRefuseEveryAggregate() {
    for (DeleteFile delete : List.of(delete(FileContent.POSITION_DELETES, FileFormat.PARQUET, 1),
        delete(FileContent.EQUALITY_DELETES, FileFormat.PARQUET, 1))) {
      List<FileScanTask> tasks = List.of(task(TWO_FILES.get(0).file(), delete), TWO_FILES.get(1));
      assertFalse(eval(tasks, COUNT_STAR).answered());
      assertFalse(eval(tasks, new Aggregate(Op.MAX, D)).answered());
    }
  }

  @Test
  public void stringBoundsAreNeverTheMinOrMaxWhateverTheMetricsMode() {
    // the mode a file was written with is not recorded: bounds written under Iceberg's default
    // truncate(16) stay cut after the table's mode becomes full ("apple" may stand for "apple pie")
    List<FileScanTask> tasks = List.of(task(file("a", 2, new Col(S, 2L, 0L, null, "apple", "pear"))));
    for (Op op : List.of(Op.MIN, Op.MAX)) {
      Result refused = eval(tasks, new Aggregate(op, S));
      assertFalse(refused.answered());
      assertTrue(refused.refusal(), refused.refusal().contains("truncated"));
      assertNotNull(MetadataAggregates.refusal(List.of(new Aggregate(op, S))));
    }
    assertNull(MetadataAggregates.refusal(List.of(COUNT_STAR, new Aggregate(Op.COUNT, S),
        new Aggregate(Op.MAX, D))));
    assertEquals(List.of(2L), eval(tasks, new Aggregate(Op.COUNT, S)).values());
  }

  @Test
  public void floatingBoundsNeedKnownZeroNaNCountsAndNoSignedZero() {
    List<FileScanTask> clean = List.of(task(file("a", 3, new Col(X, 3L, 0L, 0L, -1.5d, 2.5d))));
    assertEquals(List.of(-1.5d, 2.5d), answer(clean, new Aggregate(Op.MIN, X), new Aggregate(Op.MAX, X)));
    List<FileScanTask> withNaN = List.of(task(file("a", 3, new Col(X, 3L, 0L, 1L, -1.5d, 2.5d))));
    assertFalse(eval(withNaN, new Aggregate(Op.MAX, X)).answered());
    assertFalse(eval(withNaN, new Aggregate(Op.MIN, X)).answered());
    List<FileScanTask> unknownNaN = List.of(task(file("a", 3, new Col(X, 3L, 0L, null, -1.5d, 2.5d))));
    assertFalse(eval(unknownNaN, new Aggregate(Op.MAX, X)).answered());
    List<FileScanTask> zero = List.of(task(file("a", 3, new Col(X, 3L, 0L, 0L, -0.0d, 2.5d))));
    assertFalse(eval(zero, new Aggregate(Op.MIN, X)).answered());
    assertEquals(List.of(2.5d), answer(zero, new Aggregate(Op.MAX, X)));
  }

  @Test
  public void promotedBoundsOfTheOldWidthAreRead() {
    // a column promoted from int to long keeps 4-byte bounds in files written before the promotion
    Types.NestedField asInt = Types.NestedField.optional(1, "id", Types.IntegerType.get());
    List<FileScanTask> tasks = List.of(task(file("a", 2, new Col(asInt, 2L, 0L, null, 3, 9))),
        task(file("b", 2, new Col(ID, 2L, 0L, null, 1L << 40, 1L << 41))));
    assertEquals(List.of(3L, 1L << 41), answer(tasks, new Aggregate(Op.MIN, ID), new Aggregate(Op.MAX, ID)));
  }

  @Test
  public void unsupportedTypesAreRefused() {
    Types.NestedField bin = Types.NestedField.optional(5, "b", Types.BinaryType.get());
    List<FileScanTask> tasks = List.of(task(file("a", 1, new Col(bin, 1L, 0L, null,
        ByteBuffer.wrap(new byte[] {1}), ByteBuffer.wrap(new byte[] {2})))));
    assertFalse(eval(tasks, new Aggregate(Op.MAX, bin)).answered());
    assertNotNull(MetadataAggregates.refusal(List.of(new Aggregate(Op.MIN, bin))));
    assertNull(eval(tasks, new Aggregate(Op.MAX, bin)).values());
  }
}
