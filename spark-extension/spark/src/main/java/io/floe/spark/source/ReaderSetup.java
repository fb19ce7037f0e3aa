package io.floe.spark.source;

import io.floe.format.OptionErrors;
import io.floe.format.metadata.NameMapping;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * What every read of Floe data files gives its {@link FloeReaderFactory}, built once per scan on the
 * driver: the session's Hadoop configuration, broadcast so that each executor deserializes it once
 * (and reused by the next scans while it is unchanged, see {@link SharedConf});
 * the rows per batch (the {@value #BATCH_SIZE} read option, else Spark's
 * {@value #SPARK_BATCH_SIZE}); the table and snapshot a reader names when a file is missing; and the
 * table's name mapping (JSON, or null), which matches the columns of files without field ids.
 * Used by {@link FloeScan}, {@link FileSetScan}, {@link FloeChangelogScan} and
 * {@link FloeMicroBatchStream}.
 */
final class ReaderSetup {
  /** Read option: rows per columnar batch. */
  static final String BATCH_SIZE = "batch-size";
  static final String SPARK_BATCH_SIZE = "spark.sql.parquet.columnarReaderBatchSize";

  private static final SharedConf<SparkContext, Broadcast<SerializableConfiguration>> LAST_CONF = new SharedConf<>();

  private final Broadcast<SerializableConfiguration> conf;
  private final int batchSize;
  private final String tableName;
  private final Long snapshotId;
  private final String nameMapping;

  private ReaderSetup(Broadcast<SerializableConfiguration> conf, int batchSize, String tableName,
      Long snapshotId, String nameMapping) {
    this.conf = conf;
    this.batchSize = batchSize;
    this.tableName = tableName;
    this.snapshotId = snapshotId;
    this.nameMapping = nameMapping;
  }

  /**
   * The setup of a read of {@code tableName} at {@code snapshotId} (null: none, or a stream) with the
   * read {@code options} (only {@value #BATCH_SIZE} is used); throws Floe's invalid-option error when
   * the batch size is not a positive integer.
   */
  static ReaderSetup of(TableView table, Long snapshotId, Map<String, String> options) {
    SparkSession spark = SparkSession.active();
    String tableName = table.name();
    int batchSize = batchSize(tableName, options, spark.conf().get(SPARK_BATCH_SIZE, "4096"));
    String nameMapping = table.metadata().properties().get(NameMapping.DEFAULT);
    return new ReaderSetup(hadoopConf(spark), batchSize, tableName, snapshotId, nameMapping);
  }

  /** The session's Hadoop configuration, broadcast: the last broadcast while it is unchanged (see {@link SharedConf}). */
  private static Broadcast<SerializableConfiguration> hadoopConf(SparkSession spark) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Map<String, String> entries = new HashMap<>();
    for (Map.Entry<String, String> e : conf) {
      entries.put(e.getKey(), e.getValue());
    }
    SparkContext context = spark.sparkContext();
    return LAST_CONF.get(context, entries, b -> b.isValid() && !context.isStopped(),
        () -> JavaSparkContext.fromSparkContext(context).broadcast(new SerializableConfiguration(conf)));
  }

  /** A reader factory of data files read with {@code readSchema} (columns carrying field ids). */
  FloeReaderFactory files(StructType readSchema) {
    return files(readSchema, null);
  }

  /**
   * As above; Parquet skips the row groups and pages where none of {@code skipFilters} (null: none),
   * filters Spark evaluates again on the rows read, can match. Never for reads that need every row.
   */
  FloeReaderFactory files(StructType readSchema, org.apache.spark.sql.sources.Filter[] skipFilters) {
    return new FloeReaderFactory(readSchema, conf, batchSize, tableName, snapshotId, nameMapping, skipFilters);
  }

  /** The {@value #BATCH_SIZE} read option when given, else {@code sparkDefault}; a positive int. */
  static int batchSize(String tableName, Map<String, String> options, String sparkDefault) {
    String value = options.get(BATCH_SIZE);
    String setting = value != null ? BATCH_SIZE : SPARK_BATCH_SIZE;
    String source = value != null ? "read option " + BATCH_SIZE : "Spark setting " + SPARK_BATCH_SIZE;
    if (value == null) {
      value = sparkDefault;
    }
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed > 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw SparkExceptions.thrown(OptionErrors.invalidOption(setting, value, "Invalid " + source + " for a read of table " + tableName + ": '" + value
        + "' (expected a positive number of rows per batch, at most " + Integer.MAX_VALUE
        + "; Spark's default is 4096)"));
  }
}
