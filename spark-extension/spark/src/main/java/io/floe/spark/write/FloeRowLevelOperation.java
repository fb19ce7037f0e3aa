package io.floe.spark.write;

import io.floe.format.commit.IsolationLevel;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.table.TableView;
import io.floe.spark.source.FloeScan;
import io.floe.spark.source.FloeScanBuilder;
import java.util.Locale;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * What copy-on-write and merge-on-read operations share: the table, command and isolation level,
 * and the one scan Spark builds for the operation, whose snapshot, filter and (runtime-filtered)
 * files the commit validates against.
 */
public abstract class FloeRowLevelOperation implements RowLevelOperation {
  protected final TableView table;
  protected final Command command;
  protected final IsolationLevel isolation;
  private FloeScanBuilder scanBuilder = null;
  private FloeScan scan = null;

  protected FloeRowLevelOperation(TableView table, Command command, IsolationLevel isolation) {
    this.table = table;
    this.command = command;
    this.isolation = isolation;
  }

  /** {@code copy-on-write} or {@code merge-on-read}. */
  protected abstract String mode();

  @Override
  public Command command() {
    return command;
  }

  @Override
  public String description() {
    return mode() + " " + command.name().toLowerCase(Locale.ROOT) + " of " + table.name() + " ("
        + isolation.name().toLowerCase(Locale.ROOT) + " isolation)";
  }

  /** One builder per operation: Spark may plan the table twice (UPDATE with a subquery), and both share the scan. */
  @Override
  public synchronized ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    if (scanBuilder == null) {
      scanBuilder = FloeScanBuilder.forRowLevelOperation(table, options, this::scanBuilt);
    }
    return scanBuilder;
  }

  private synchronized void scanBuilt(FloeScan built) {
    this.scan = built;
  }

  /**
   * Validates {@code producer} against the commits since {@code scan}'s snapshot: deletes added
   * for files it removes or deletes from always conflict; under serializable isolation so does
   * data added that may match the scan's filter.
   */
  static void validateAgainst(SnapshotProducer producer, FloeScan scan, IsolationLevel isolation) {
    producer.validateFromSnapshot(scan.snapshotId());
    producer.conflictDetectionFilter(scan.filterExpression());
    producer.validateNoConflictingDeleteFiles();
    if (isolation == IsolationLevel.SERIALIZABLE) {
      producer.validateNoConflictingDataFiles();
    }
  }

  /** The scan Spark built for this operation (the last one, when it planned the table twice). */
  protected synchronized FloeScan scan() {
    if (scan == null) {
      throw new IllegalStateException("Cannot write " + description() + ": Spark did not scan the table");
    }
    return scan;
  }
}
