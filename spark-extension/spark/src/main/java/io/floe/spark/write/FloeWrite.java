package io.floe.spark.write;

import io.floe.format.expr.Expression;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionField;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.util.SerializableConfiguration;

/**
 * A planned write. For a partitioned table it asks Spark to cluster rows by identity partition
 * columns and sort them within each task, so each task writes one file per partition instead of one
 * per partition per input split.
 */
final class FloeWrite implements Write, RequiresDistributionAndOrdering {
  private final FloeWriteTarget target;
  private final LogicalWriteInfo info;
  private final FloeBatchWrite.Mode mode;
  private final Expression overwriteFilter;

  FloeWrite(FloeWriteTarget target, LogicalWriteInfo info, FloeBatchWrite.Mode mode, Expression overwriteFilter) {
    this.target = target;
    this.info = info;
    this.mode = mode;
    this.overwriteFilter = overwriteFilter;
  }

  @Override
  public String description() {
    return "FloeWrite(" + target.name() + ", " + mode + ")";
  }

  private List<String> clusteringColumns() {
    TableMetadata metadata = target.metadata();
    List<String> columns = new ArrayList<>();
    for (PartitionField f : metadata.spec().fields()) {
      String name = metadata.schema().findColumnName(f.sourceId());
      if (name != null && !f.transform().isVoid() && !columns.contains(name)) {
        columns.add(name);
      }
    }
    return columns;
  }

  @Override
  public Distribution requiredDistribution() {
    String mode = target.metadata().properties().getOrDefault("write.distribution-mode", "hash");
    List<String> columns = clusteringColumns();
    if (columns.isEmpty() || mode.equals("none")) {
      return Distributions.unspecified();
    }
    return Distributions.clustered(columns.stream().map(Expressions::column)
        .toArray(org.apache.spark.sql.connector.expressions.Expression[]::new));
  }

  @Override
  public boolean distributionStrictlyRequired() {
    return false;
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return clusteringColumns().stream()
        .map(c -> Expressions.sort(Expressions.column(c), SortDirection.ASCENDING))
        .toArray(SortOrder[]::new);
  }

  @Override
  public BatchWrite toBatch() {
    SerializableConfiguration conf = new SerializableConfiguration(SparkSession.active().sessionState().newHadoopConf());
    return new FloeBatchWrite(target, target.metadata(), info.schema(), mode, overwriteFilter, conf);
  }
}
