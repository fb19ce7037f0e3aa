package io.floe.format.maintenance;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** rewrite_data_files' options and its choice of file groups, without Spark. */
public class TestFileGroupPlanner {
  private static final long MB = 1L << 20;
  private static final String DESCRIBE = "Cannot rewrite table db.t";

  private static RewriteOptions options(Map<String, String> given) {
    return RewriteOptions.parse(given, Map.of(), DESCRIBE);
  }

  private static RewriteOptions options(String... keyValues) {
    Map<String, String> given = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      given.put(keyValues[i], keyValues[i + 1]);
    }
    return options(given);
  }

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "p", Types.IntegerType.get()));
  private static final PartitionSpec BY_P = PartitionSpec.builderFor(SCHEMA).identity("p").build();

  private static FileScanTask file(String name, long bytes, Object partition) {
    PartitionSpec spec = partition == null ? PartitionSpec.unpartitioned() : BY_P;
    DataFile file = DataFile.builder(spec).withPath("file:/t/data/" + name).withFormat(FileFormat.PARQUET)
        .withPartition(partition == null ? PartitionData.empty() : PartitionData.of(partition))
        .withRecordCount(10).withFileSizeInBytes(bytes).build();
    return new FileScanTask(file, List.of(), spec, 1);
  }

  @Test
  public void sizesDefaultFromTheTablePropertyAsIcebergDoes() {
    RewriteOptions defaults = RewriteOptions.parse(Map.of(), Map.of(), DESCRIBE);
    assertEquals(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT, defaults.targetFileSize());
    assertEquals((long) (defaults.targetFileSize() * 0.75), defaults.minFileSize());
    assertEquals((long) (defaults.targetFileSize() * 1.8), defaults.maxFileSize());
    assertEquals(5, defaults.minInputFiles());
    assertTrue(defaults.useStartingSequenceNumber());

    RewriteOptions fromTable = RewriteOptions.parse(Map.of(),
        Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1000"), DESCRIBE);
    assertEquals(1000, fromTable.targetFileSize());
    assertEquals(750, fromTable.minFileSize());
    assertEquals(1800, fromTable.maxFileSize());
    assertEquals(1400, fromTable.writerFileSize());
  }

  @Test
  public void badOptionsAreErrorsNamingTheOption() {
    String[][] cases = {
        {"no-such-option", "1", "unknown option 'no-such-option'"},
        {"min-input-files", "0", "min-input-files='0'"},
        {"rewrite-all", "yes", "rewrite-all='yes'"},
        {"target-file-size-bytes", "ten", "target-file-size-bytes='ten'"},
        {"remove-dangling-deletes", "true", "remove-dangling-deletes=true is not supported"}};
    for (String[] c : cases) {
      RuntimeException e = assertThrows(RuntimeException.class, () -> options(c[0], c[1]));
      assertTrue(e.getMessage(), e.getMessage().startsWith(DESCRIBE) && e.getMessage().contains(c[2]));
    }
    RuntimeException order = assertThrows(RuntimeException.class,
        () -> options("target-file-size-bytes", "100", "min-file-size-bytes", "200"));
    assertTrue(order.getMessage(), order.getMessage().contains("min-file-size-bytes (200) <= target-file-size-bytes"));
    RuntimeException table = assertThrows(RuntimeException.class, () -> RewriteOptions.parse(Map.of(),
        Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "-5"), DESCRIBE));
    assertTrue(table.getMessage(), table.getMessage().contains("write.target-file-size-bytes='-5'"));
  }

  @Test
  public void smallFilesOfOnePartitionAreGroupedWhenThereAreEnough() {
    RewriteOptions opts = options("target-file-size-bytes", Long.toString(100 * MB), "min-input-files", "3");
    List<FileScanTask> tasks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      tasks.add(file("a" + i, MB, 1));
    }
    tasks.add(file("b0", MB, 2)); // one small file alone in its partition: nothing to merge it with
    tasks.add(file("c0", 100 * MB, 1)); // at the target size: not a candidate
    List<FileGroupPlanner.FileGroup> groups = new FileGroupPlanner(opts).plan(tasks);
    assertEquals(1, groups.size());
    assertEquals(3, groups.get(0).tasks().size());
    assertEquals(3 * MB, groups.get(0).bytes());
    assertEquals(1, groups.get(0).outputFiles());
  }

  @Test
  public void groupsAreBinPackedToTheMaximumGroupSize() {
    RewriteOptions opts = options("target-file-size-bytes", Long.toString(100 * MB), "min-input-files", "2",
        "max-file-group-size-bytes", Long.toString(10 * MB));
    List<FileScanTask> tasks = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      tasks.add(file("f" + i, 4 * MB, null));
    }
    List<FileGroupPlanner.FileGroup> groups = new FileGroupPlanner(opts).plan(tasks);
    assertEquals(4, groups.size());
    for (FileGroupPlanner.FileGroup g : groups) {
      assertTrue(g.bytes() <= 10 * MB);
    }
  }

  @Test
  public void aFileAboveTheMaximumIsSplitAlone() {
    RewriteOptions opts = options("target-file-size-bytes", Long.toString(100 * MB));
    List<FileGroupPlanner.FileGroup> groups = new FileGroupPlanner(opts).plan(List.of(file("big", 400 * MB, null)));
    assertEquals(1, groups.size());
    assertEquals(4, groups.get(0).outputFiles());
  }

  @Test
  public void rewriteAllTakesEveryFile() {
    RewriteOptions opts = options("rewrite-all", "true");
    assertEquals(1, new FileGroupPlanner(opts).plan(List.of(file("one", 10, null))).size());
  }

  @Test
  public void outputFilesSpreadASmallRemainder() {
    FileGroupPlanner planner = new FileGroupPlanner(options("target-file-size-bytes", "1000"));
    assertEquals(1, planner.outputFiles(10));
    assertEquals(1, planner.outputFiles(1000));
    assertEquals(2, planner.outputFiles(1800)); // remainder 800 > min 750: its own file
    assertEquals(2, planner.outputFiles(2050)); // remainder 50 spread over two files of 1025
    assertEquals(3, planner.outputFiles(2740)); // remainder 740 would make 1370-byte files: too large
  }
}
