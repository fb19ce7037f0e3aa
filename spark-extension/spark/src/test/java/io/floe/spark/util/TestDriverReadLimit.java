package io.floe.spark.util;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import java.util.List;
import org.junit.Test;

/** The driver-read limits: rows and file bytes summed over the tasks, deletes only when allowed, 0 is off. */
public class TestDriverReadLimit {
  private static FileScanTask task(long rows, long bytes, boolean withDelete) {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    DataFile data = DataFile.builder(spec).withPath("file:/t/data/" + rows + "-" + bytes + ".parquet")
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.empty()).withRecordCount(rows)
        .withFileSizeInBytes(bytes).withMetrics(Metrics.empty(rows)).build();
    List<DeleteFile> deletes = !withDelete ? List.of()
        : List.of(DeleteFile.builder(spec).withContent(FileContent.POSITION_DELETES)
            .withPath("file:/t/data/deletes.parquet").withFormat(FileFormat.PARQUET)
            .withPartition(PartitionData.empty()).withRecordCount(1).withFileSizeInBytes(10)
            .withMetrics(Metrics.empty(1)).build());
    return new FileScanTask(data, deletes, spec, 1L);
  }

  @Test
  public void rowsAndBytesAreSummedOverTheTasks() {
    DriverReadLimit limit = new DriverReadLimit(100, 1000);
    assertTrue(limit.admits(List.of(task(60, 400, false), task(40, 600, false)), false));
    assertFalse(limit.admits(List.of(task(60, 400, false), task(41, 600, false)), false));
    assertFalse(limit.admits(List.of(task(60, 400, false), task(40, 601, false)), false));
    assertTrue(limit.admits(List.of(), false));
  }

  @Test
  public void deletesOnlyWhenAllowedAndZeroTurnsItOff() {
    List<FileScanTask> withDeletes = List.of(task(10, 10, true));
    assertFalse(new DriverReadLimit(100, 1000).admits(withDeletes, false));
    assertTrue(new DriverReadLimit(100, 1000).admits(withDeletes, true));
    assertFalse(new DriverReadLimit(0, 1000).admits(List.of(), true));
    assertFalse(new DriverReadLimit(100, 0).admits(List.of(task(1, 1, false)), true));
  }

  @Test
  public void settingsParseOrNameTheSetting() {
    assertEquals(7L, DriverReadLimit.parse("k", null, 7L, "rows", "reads"));
    assertEquals(0L, DriverReadLimit.parse("k", " 0 ", 7L, "rows", "reads"));
    assertEquals(Long.MAX_VALUE, DriverReadLimit.parse("k", String.valueOf(Long.MAX_VALUE), 7L, "rows", "reads"));
    for (String bad : List.of("-1", "many", "1.5", "")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> DriverReadLimit.parse("spark.floe.read.local-max-rows", bad, 7L, "rows", "reads every scan"));
      assertEquals("Invalid Spark setting spark.floe.read.local-max-rows=" + bad
          + ": expected a number of rows >= 0 (0 reads every scan with a Spark job)", e.getMessage());
    }
  }
}
