package io.floe.spark.write;

import io.floe.format.commit.IsolationLevel;
import io.floe.format.table.TableView;
import io.floe.spark.source.FloeScan;
import io.floe.spark.source.MetadataColumns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The write of a merge-on-read operation. Correctness does not depend on how rows are
 * distributed: tasks only report deleted positions per data file, which the driver merges, and
 * inserted rows go to the fanout writer (one open file per partition). So a DELETE or an UPDATE
 * asks for no shuffle (each task handles the rows of the files it read; an UPDATE's new rows
 * usually stay in their partition). A MERGE's rows come out of a join in no useful order: on a
 * partitioned table with {@code write.distribution-mode} hash (the default), they are clustered by
 * the deleted row's {@code _spec_id} and {@code _partition} and the new row's partition values,
 * so that each partition's inserts land in few files.
 */
final class PositionDeltaWrite extends FloeWrite implements DeltaWrite {
  private final TableView table;
  private final Command command;
  private final IsolationLevel isolation;
  private final FloeScan scan;

  PositionDeltaWrite(TableView table, LogicalWriteInfo info, Command command, IsolationLevel isolation,
      FloeScan scan) {
    super(FloeWriteTarget.forTable(table), info, FloeBatchWrite.Mode.ROW_LEVEL, null);
    this.table = table;
    this.command = command;
    this.isolation = isolation;
    this.scan = scan;
  }

  @Override
  public String description() {
    return "PositionDeltaWrite(" + target.name() + ", " + command + ")";
  }

  @Override
  public Distribution requiredDistribution() {
    if (command != Command.MERGE || target.metadata().spec().isUnpartitioned()) {
      return Distributions.unspecified();
    }
    Distribution table = super.requiredDistribution();
    if (!(table instanceof ClusteredDistribution)) {
      return table;
    }
    List<Expression> clustering = new ArrayList<>();
    clustering.add(Expressions.column(MetadataColumns.SPEC_ID_COLUMN));
    clustering.add(Expressions.column(MetadataColumns.PARTITION_COLUMN));
    clustering.addAll(Arrays.asList(((ClusteredDistribution) table).clustering()));
    return Distributions.clustered(clustering.toArray(new Expression[0]));
  }

  /** Rows need no order (fanout writer); a MERGE sorts by the table's sort order when it has one. */
  @Override
  public SortOrder[] requiredOrdering() {
    if (command != Command.MERGE || sortOrderExpressions().isEmpty()) {
      return new SortOrder[0];
    }
    return super.requiredOrdering();
  }

  @Override
  public PositionDeltaBatchWrite toBatch() {
    SerializableConfiguration conf = new SerializableConfiguration(SparkSession.active().sessionState().newHadoopConf());
    return new PositionDeltaBatchWrite(table, info, isolation, scan, conf);
  }
}
