package io.floe.spark.source;

import io.floe.format.FloeException;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.scan.FileScanTask;
import io.floe.format.stream.ChangelogOptions;
import io.floe.format.stream.ChangelogScan;
import io.floe.format.stream.ChangelogTask;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The read of a table's change feed ({@code db.t.changes}): the current schema's columns of every
 * row the snapshots of a range inserted or deleted, with {@code _change_type} (INSERT or DELETE),
 * {@code _change_ordinal} and {@code _commit_snapshot_id}, as Iceberg's changelog table. The tasks
 * come from {@link ChangelogScan}; each becomes one input partition.
 */
public final class FloeChangelogScan implements Scan, Batch {
  public static final String CHANGE_TYPE = "_change_type";
  public static final String CHANGE_ORDINAL = "_change_ordinal";
  public static final String COMMIT_SNAPSHOT_ID = "_commit_snapshot_id";

  private final TableView table;
  private final ChangelogOptions.Range range;

  public FloeChangelogScan(TableView table, ChangelogOptions.Range range) {
    this.table = table;
    this.range = range;
  }

  /** The columns of {@code table}'s change feed: its current columns, then the three change columns. */
  public static StructType schema(TableView table) {
    return SparkSchemas.convert(table.readSchema())
        .add(CHANGE_TYPE, DataTypes.StringType, false)
        .add(CHANGE_ORDINAL, DataTypes.IntegerType, false)
        .add(COMMIT_SNAPSHOT_ID, DataTypes.LongType, false);
  }

  @Override
  public StructType readSchema() {
    return schema(table);
  }

  @Override
  public String description() {
    return "FloeChangelogScan " + table.name() + (range.empty() ? " (empty range)"
        : " after=" + range.startExclusive() + " to=" + range.endInclusive());
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    if (range.empty()) {
      return new InputPartition[0];
    }
    List<ChangelogTask> tasks;
    try {
      tasks = ChangelogScan.of(table.name(), table.ops().io(), table.metadata())
          .planTasks(range.startExclusive(), range.endInclusive());
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e);
    }
    List<InputPartition> out = new ArrayList<>();
    for (ChangelogTask task : tasks) {
      String type = task.changeType().name();
      if (task instanceof ChangelogTask.AddedRows added) {
        out.add(new ChangelogInputPartition(read(task, added.deletes()), null, type, task.changeOrdinal(),
            task.commitSnapshotId()));
      } else if (task instanceof ChangelogTask.DeletedDataFile removed) {
        out.add(new ChangelogInputPartition(read(task, removed.existingDeletes()), null, type,
            task.changeOrdinal(), task.commitSnapshotId()));
      } else {
        ChangelogTask.DeletedRows deleted = (ChangelogTask.DeletedRows) task;
        List<DeleteFile> after = new ArrayList<>(deleted.existingDeletes());
        after.addAll(deleted.addedDeletes());
        out.add(new ChangelogInputPartition(read(task, deleted.existingDeletes()), read(task, after), type,
            task.changeOrdinal(), task.commitSnapshotId()));
      }
    }
    return out.toArray(new InputPartition[0]);
  }

  private static FloeInputPartition read(ChangelogTask task, List<DeleteFile> deletes) {
    DataFile file = task.file();
    return FloeInputPartition.of(new FileScanTask(file, deletes, task.spec(), 0L));
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    StructType data = SparkSchemas.withFieldIds(table.readSchema(), SparkSchemas.convert(table.readSchema()));
    Long snapshotId = table.snapshot() == null ? null : table.snapshot().snapshotId();
    return new ChangelogReaderFactory(ReaderSetup.of(table, snapshotId, Map.of())::files, data,
        readSchema());
  }
}
