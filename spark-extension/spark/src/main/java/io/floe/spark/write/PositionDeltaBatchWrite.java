package io.floe.spark.write;

import io.floe.format.FloeException;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.IsolationLevel;
import io.floe.format.commit.RowDelta;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.format.table.TableView;
import io.floe.spark.source.FloeParquetReader;
import io.floe.spark.source.FloeScan;
import io.floe.spark.util.CommitGate;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The driver side of a merge-on-read write. Tasks report inserted data files and deleted positions
 * per data file; the commit ORs each data file's positions across tasks, writes the delete files
 * (see {@link PositionDeltaDeleteFiles}) and commits one {@link RowDelta}, validated against the
 * commits since the scan's snapshot: the data files that get deletes must still be live, no
 * concurrent commit may have added deletes for them, and under {@code serializable} isolation no
 * concurrent commit may have added data that the operation's condition may match. On a known
 * failure every file this write created is deleted; when the outcome is unknown, nothing is.
 */
final class PositionDeltaBatchWrite implements DeltaBatchWrite {
  private final TableView table;
  private final TableMetadata base;
  private final LogicalWriteInfo info;
  private final IsolationLevel isolation;
  private final FloeScan scan;
  private final SerializableConfiguration conf;
  private final String dataLocation;
  private final String operationId = UUID.randomUUID().toString();
  private volatile boolean commitStateUnknown = false;

  PositionDeltaBatchWrite(TableView table, LogicalWriteInfo info, IsolationLevel isolation, FloeScan scan,
      SerializableConfiguration conf) {
    this.table = table;
    this.base = table.metadata();
    this.info = info;
    this.isolation = isolation;
    this.scan = scan;
    this.conf = conf;
    this.dataLocation = FloeBatchWrite.dataLocation(base);
  }

  @Override
  public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo physicalInfo) {
    StructType rowId = info.rowIdSchema().orElseThrow(
        () -> new IllegalStateException("Cannot write " + table.name() + ": Spark passed no row id schema"));
    FloeBatchWrite.createWriteMarker(dataLocation, operationId, conf.value(), table.name());
    FloeDataWriterFactory inserts = new FloeDataWriterFactory(base.schema(), base.spec(), info.schema(),
        dataLocation, conf, base.properties(), operationId, true,
        FloeWriteTarget.forTable(table).indexedColumns(base, info.schema()));
    return new PositionDeltaWriterFactory(inserts, rowId.fieldIndex(FloeParquetReader.FILE_COLUMN),
        rowId.fieldIndex(FloeParquetReader.POS_COLUMN));
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    // the marker stays until the snapshot is published: orphan removal keeps the files it names
    try {
      commitFiles(messages);
    } catch (FloeException e) {
      throw SparkExceptions.atRuntime(e);
    } finally {
      FloeBatchWrite.deleteFiles(List.of(FloeBatchWrite.writeMarker(dataLocation, operationId)), conf.value());
    }
  }

  private void commitFiles(WriterCommitMessage[] messages) {
    List<DataFile> inserted = new ArrayList<>();
    List<WrittenFile> written = new ArrayList<>();
    Map<String, RoaringPositionBitmap> deleted = new HashMap<>();
    for (WriterCommitMessage message : messages) {
      if (message instanceof PositionDeltaWriter.Message m) {
        m.inserted().forEach(f -> inserted.add(f.toDataFile(base.specsById().get(f.specId()))));
        written.addAll(m.inserted());
        m.deletedPositions().forEach((path, bytes) -> {
          RoaringPositionBitmap positions = PositionDeltaWriter.deserialize(bytes, path);
          RoaringPositionBitmap seen = deleted.putIfAbsent(path, positions);
          if (seen != null) {
            seen.addAll(positions);
          }
        });
      }
    }
    if (inserted.isEmpty() && deleted.isEmpty()) {
      return; // nothing matched: no snapshot
    }
    CommitGate.pass(table.name());
    PositionDeltaDeleteFiles deletes = new PositionDeltaDeleteFiles(base, table.ops().io(), conf.value(),
        dataLocation, operationId);
    try {
      deletes.write(deleted, tasksOf(deleted.keySet()));
      RowDelta delta = table.target(new RowDelta(table.ops()));
      inserted.forEach(delta::addRows);
      deletes.added().forEach(delta::addDeletes);
      deletes.replaced().forEach(delta::removeDeletes);
      delta.validateDataFilesExist(deleted.keySet());
      delta.validateAddedFilesExist();
      FloeRowLevelOperation.validateAgainst(delta, scan, isolation);
      delta.set("spark.app.id", SparkSession.active().sparkContext().applicationId());
      FloeBatchWrite.addIndexSync(delta, FloeWriteTarget.forTable(table), written);
      // Spark calls abort() after any Throwable: until the commit fails in a known way, its files may
      // be in the table (an OutOfMemoryError can strike after publishing) and abort() must keep them
      commitStateUnknown = true;
      delta.commit();
      CommitErrorHook.afterCommit();
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      commitStateUnknown = false;
      List<String> created = new ArrayList<>(deletes.written());
      inserted.forEach(f -> created.add(f.path()));
      FloeBatchWrite.deleteFiles(created, conf.value());
      throw e;
    }
  }

  /**
   * The planned task of each data file that rows were deleted from: from the operation's scan, or,
   * should Spark have read a file through another scan of the same snapshot, from a fresh plan.
   */
  private Map<String, FileScanTask> tasksOf(Set<String> paths) {
    Map<String, FileScanTask> tasks = new HashMap<>();
    scan.tasks().forEach(t -> tasks.put(t.file().path(), t));
    if (!tasks.keySet().containsAll(paths) && table.snapshot() != null) {
      TableScan.of(table.ops().io(), base).useSnapshot(table.snapshot()).schema(table.readSchema()).planFiles()
          .tasks().forEach(t -> tasks.putIfAbsent(t.file().path(), t));
    }
    for (String path : paths) {
      if (!tasks.containsKey(path)) {
        throw new IllegalStateException("Cannot commit " + table.name() + ": rows were deleted from data file "
            + path + ", which is not in the scanned snapshot " + scan.snapshotId());
      }
    }
    return tasks;
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    // Tasks of the failed job may still be running: first make late ones clean up after themselves.
    FloeBatchWrite.deleteFiles(List.of(FloeBatchWrite.writeMarker(dataLocation, operationId)), conf.value());
    if (commitStateUnknown) {
      return; // the commit may have succeeded: its files may be in the table
    }
    List<String> inserted = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message instanceof PositionDeltaWriter.Message m) {
        m.inserted().forEach(f -> inserted.add(f.path()));
      }
    }
    inserted.addAll(FloeBatchWrite.filesOfWrite(dataLocation, operationId, conf.value()));
    FloeBatchWrite.deleteFiles(inserted, conf.value());
  }

  @Override
  public String toString() {
    return "PositionDeltaBatchWrite(" + table.name() + ", " + operationId + ")";
  }
}
