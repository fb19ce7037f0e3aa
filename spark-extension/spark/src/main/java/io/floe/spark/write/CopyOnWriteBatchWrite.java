package io.floe.spark.write;

import io.floe.format.commit.IsolationLevel;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.manifest.DataFile;
import io.floe.format.scan.FileScanTask;
import io.floe.spark.source.FloeScan;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Commits a copy-on-write operation: one snapshot removes every data file the operation's scan
 * read (after runtime filtering) and adds the files written, validated against the commits since
 * the scan's snapshot: a concurrent delete touching a removed file always conflicts; under
 * {@code serializable} isolation so does a concurrent commit adding data that may match the
 * operation's condition. Nothing read and nothing written: no snapshot.
 */
final class CopyOnWriteBatchWrite extends FloeBatchWrite {
  private final Command command;
  private final IsolationLevel isolation;
  private final FloeScan scan;

  CopyOnWriteBatchWrite(FloeWriteTarget target, StructType rowType, SerializableConfiguration conf, Command command,
      IsolationLevel isolation, FloeScan scan) {
    super(target, target.metadata(), rowType, Mode.ROW_LEVEL, null, conf);
    this.command = command;
    this.isolation = isolation;
    this.scan = scan;
  }

  @Override
  protected boolean fanout() {
    return true;
  }

  @Override
  protected SnapshotProducer newProducer(List<DataFile> files) {
    Set<String> replaced = new LinkedHashSet<>();
    for (FileScanTask task : scan.tasks()) {
      replaced.add(task.file().path());
    }
    if (replaced.isEmpty() && files.isEmpty()) {
      return null;
    }
    OverwriteFiles overwrite = target().newOverwrite();
    replaced.forEach(overwrite::deleteFile);
    files.forEach(overwrite::addFile);
    FloeRowLevelOperation.validateAgainst(overwrite, scan, isolation);
    return overwrite;
  }

  @Override
  public String toString() {
    return "CopyOnWriteBatchWrite(" + target().name() + ", " + command + ")";
  }
}
