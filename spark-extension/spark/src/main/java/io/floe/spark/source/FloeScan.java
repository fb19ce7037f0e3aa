package io.floe.spark.source;

import io.floe.format.expr.Expression;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.ScanPlan;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.spark.FloeTable;
import io.floe.spark.SparkSchemas;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.util.SerializableConfiguration;

/** One planned read of a snapshot: files are planned once, lazily, and reused for statistics and partitions. */
public final class FloeScan implements Scan, Batch, SupportsReportStatistics {
  private final FloeTable table;
  private final StructType requested;
  private final Expression filter;
  private final Predicate[] pushed;
  private final CaseInsensitiveStringMap options;
  private ScanPlan plan = null;

  FloeScan(FloeTable table, StructType requested, Expression filter, Predicate[] pushed,
      CaseInsensitiveStringMap options) {
    this.table = table;
    this.requested = requested;
    this.filter = filter;
    this.pushed = pushed;
    this.options = options;
  }

  @Override
  public StructType readSchema() {
    return requested;
  }

  @Override
  public String description() {
    String filters = Arrays.stream(pushed).map(Predicate::toString).collect(Collectors.joining(", "));
    return "FloeScan " + table.name() + (table.snapshot() == null ? "" : " snapshot=" + table.snapshot().snapshotId())
        + " filters=[" + filters + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /** The planned files and pruning counts (public for tests and EXPLAIN-like tooling). */
  public synchronized ScanPlan plan() {
    if (plan == null) {
      TableScan scan = TableScan.of(table.ops().io(), table.metadata()).useSnapshot(table.snapshot()).filter(filter);
      plan = scan.planFiles();
      ScanReports.record(table.name(), plan);
    }
    return plan;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<FileScanTask> tasks = plan().tasks();
    InputPartition[] partitions = new InputPartition[tasks.size()];
    for (int i = 0; i < tasks.size(); i++) {
      partitions[i] = FloeInputPartition.of(tasks.get(i));
    }
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    Schema schema = table.readSchema();
    StructType withIds = SparkSchemas.withFieldIds(schema, requested);
    SparkSession spark = SparkSession.active();
    int batchSize = Integer.parseInt(options.getOrDefault("batch-size",
        spark.conf().get("spark.sql.parquet.columnarReaderBatchSize", "4096")));
    return new FloeReaderFactory(withIds,
        new SerializableConfiguration(spark.sessionState().newHadoopConf()), batchSize);
  }

  @Override
  public Statistics estimateStatistics() {
    long rows = 0;
    long bytes = 0;
    for (FileScanTask task : plan().tasks()) {
      rows += task.file().recordCount();
      bytes += task.file().fileSizeInBytes();
    }
    long finalRows = rows;
    long finalBytes = Math.max(1, bytes);
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(finalBytes);
      }

      @Override
      public OptionalLong numRows() {
        return OptionalLong.of(finalRows);
      }
    };
  }
}
