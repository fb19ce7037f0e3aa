package io.floe.spark.source;

import io.floe.format.scan.FileScanTask;
import io.floe.format.table.TableView;
import io.floe.spark.util.FileSetRegistry;
import io.floe.spark.util.SparkSchemas;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * The read of one file group of a rewrite (see {@link FileSetRegistry}): exactly the registered
 * data files, each with the deletes that applied to it when the rewrite planned, one input
 * partition per file. Filters are not pushed: a rewrite reads every live row of its files.
 */
final class FileSetScan implements Scan, Batch {
  private final TableView table;
  private final StructType requested;
  private final List<FileScanTask> tasks;

  FileSetScan(TableView table, StructType requested, String fileSetId) {
    this.table = table;
    this.requested = requested;
    this.tasks = FileSetRegistry.tasks(fileSetId, table.name());
    for (String column : requested.fieldNames()) {
      if (SparkSchemas.convert(table.readSchema()).getFieldIndex(column).isEmpty()) {
        throw new IllegalArgumentException("Cannot read column " + column + " of a rewrite file set of table "
            + table.name() + ": a rewrite reads table columns only");
      }
    }
  }

  @Override
  public StructType readSchema() {
    return requested;
  }

  @Override
  public String description() {
    return "FloeFileSetScan " + table.name() + " files=" + tasks.size();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return tasks.stream().map(FloeInputPartition::of).toArray(InputPartition[]::new);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    Long snapshotId = table.snapshot() == null ? null : table.snapshot().snapshotId();
    return new FloeCombinedReaderFactory(ReaderSetup.of(table, snapshotId, Map.of())
        .files(SparkSchemas.withFieldIds(table.readSchema(), requested)));
  }
}
