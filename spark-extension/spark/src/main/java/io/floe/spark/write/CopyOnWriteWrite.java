package io.floe.spark.write;

import io.floe.format.commit.IsolationLevel;
import io.floe.spark.source.FloeScan;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The write of a copy-on-write operation. Rows go to the fanout writer (one open file per
 * partition), so they need no sort. A DELETE asks for no shuffle: each task rewrites the rows of
 * the files it read. An UPDATE or MERGE may move rows to other partitions (and a MERGE's rows come
 * out of a join in no useful order), so it asks for the table's distribution
 * ({@code write.distribution-mode}, see {@link FloeWrite}); rows are only sorted when the table
 * has a sort order.
 */
final class CopyOnWriteWrite extends FloeWrite {
  private final Command command;
  private final IsolationLevel isolation;
  private final FloeScan scan;

  CopyOnWriteWrite(FloeWriteTarget target, LogicalWriteInfo info, Command command, IsolationLevel isolation,
      FloeScan scan) {
    super(target, info, FloeBatchWrite.Mode.ROW_LEVEL, null);
    this.command = command;
    this.isolation = isolation;
    this.scan = scan;
  }

  @Override
  public String description() {
    return "CopyOnWriteWrite(" + target.name() + ", " + command + ")";
  }

  @Override
  public String toString() {
    return description();
  }

  @Override
  public Distribution requiredDistribution() {
    return command == Command.DELETE ? Distributions.unspecified() : super.requiredDistribution();
  }

  @Override
  public SortOrder[] requiredOrdering() {
    if (command == Command.DELETE || sortOrderExpressions().isEmpty()) {
      return new SortOrder[0];
    }
    return super.requiredOrdering();
  }

  @Override
  public BatchWrite toBatch() {
    SerializableConfiguration conf = new SerializableConfiguration(SparkSession.active().sessionState().newHadoopConf());
    return new CopyOnWriteBatchWrite(target, info.schema(), conf, command, isolation, scan);
  }
}
