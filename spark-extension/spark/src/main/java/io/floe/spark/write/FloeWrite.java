package io.floe.spark.write;

import io.floe.format.ErrorClass;
import io.floe.format.OptionErrors;
import io.floe.format.expr.Expression;
import io.floe.format.metadata.NullOrder;
import io.floe.format.metadata.SortField;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.Transform;
import io.floe.format.sql.SqlTokens;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkSchemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * A planned write, with the distribution and ordering it asks Spark for (as Iceberg does), chosen
 * by the table property {@code write.distribution-mode} (or the write option
 * {@code distribution-mode}):
 * <ul>
 *   <li>{@code hash} (default): rows are clustered by the partition values, so that one task
 *       receives all rows of a partition, and sorted by them (then by the table's sort order)
 *       within each task: each task writes one file per partition;</li>
 *   <li>{@code range}: rows are range-partitioned by the partition values then the sort order,
 *       and sorted the same way within tasks;</li>
 *   <li>{@code none}: no shuffle; rows are only sorted within each task.</li>
 * </ul>
 * Partition values are expressed as Spark transforms ({@code bucket(16, id)}, {@code days(ts)},
 * {@code truncate(4, s)}), which Spark evaluates through the catalog's functions. When the catalog
 * does not provide the function of a transform, that field falls back to its source column:
 * clustering by the column still puts each partition in one task, but sorting by it does not
 * group bucket partitions. Shuffled writes ask adaptive execution for tasks of about twice the
 * target file size, and no less than Spark's own advisory size (see
 * {@link #advisoryPartitionSizeInBytes}), so it neither splits a partition's rows across tasks
 * below that size nor leaves many tiny ones.
 */
class FloeWrite implements Write, RequiresDistributionAndOrdering {
  static final String DISTRIBUTION_MODE = TableProperties.WRITE_DISTRIBUTION_MODE;
  static final String DISTRIBUTION_MODE_OPTION = "distribution-mode";
  static final String ADVISORY_PARTITION_SIZE = TableProperties.SPARK_ADVISORY_PARTITION_SIZE;
  static final String ADVISORY_PARTITION_SIZE_OPTION = "advisory-partition-size";
  static final String TARGET_FILE_SIZE = TableProperties.WRITE_TARGET_FILE_SIZE_BYTES;
  /**
   * Bytes of shuffled rows (lz4 by default) per byte of the same rows in zstd Parquet: a rough
   * estimate (Iceberg's Spark writes also scale the file size by such a ratio).
   */
  private static final long SHUFFLE_TO_PARQUET_RATIO = 2;
  private static final Pattern WITH_PARAM = Pattern.compile("(\\w+)\\[(\\d+)\\]");

  protected final FloeWriteTarget target;
  protected final LogicalWriteInfo info;
  private final FloeBatchWrite.Mode mode;
  private final Expression overwriteFilter;
  private final Map<String, Boolean> resolvable = new HashMap<>();

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

  enum DistributionMode {
    NONE, HASH, RANGE
  }

  DistributionMode distributionMode() {
    String value = info.options().get(DISTRIBUTION_MODE_OPTION);
    String source = "write option " + DISTRIBUTION_MODE_OPTION;
    if (value == null) {
      value = target.metadata().properties().getOrDefault(DISTRIBUTION_MODE,
          TableProperties.WRITE_DISTRIBUTION_MODE_DEFAULT);
      source = "table property " + DISTRIBUTION_MODE;
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "none":
        return DistributionMode.NONE;
      case "hash":
        return DistributionMode.HASH;
      case "range":
        return DistributionMode.RANGE;
      default:
        throw SparkExceptions.thrown(OptionErrors.invalidOption(source, value, "Invalid " + source + " of table "
            + target.name() + ": '" + value + "' (valid values: none, hash, range)"));
    }
  }

  /** The partition values of the default spec, as Spark expressions (or source columns as a fallback). */
  private List<org.apache.spark.sql.connector.expressions.Expression> partitionExpressions() {
    TableMetadata metadata = target.metadata();
    List<org.apache.spark.sql.connector.expressions.Expression> out = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (PartitionField f : metadata.spec().fields()) {
      org.apache.spark.sql.connector.expressions.Expression e = transformExpression(metadata.schema(), f.transform(),
          f.sourceId());
      if (e != null && !seen.contains(e.describe())) {
        seen.add(e.describe());
        out.add(e);
      }
    }
    return out;
  }

  /** The table's sort order as Spark sort orders. */
  List<SortOrder> sortOrderExpressions() {
    TableMetadata metadata = target.metadata();
    List<SortOrder> out = new ArrayList<>();
    if (metadata.sortOrder() == null) {
      return out;
    }
    for (SortField f : metadata.sortOrder().fields()) {
      org.apache.spark.sql.connector.expressions.Expression e = transformExpression(metadata.schema(), f.transform(),
          f.sourceId());
      if (e != null) {
        out.add(Expressions.sort(e,
            f.direction() == io.floe.format.metadata.SortDirection.DESC ? SortDirection.DESCENDING
                : SortDirection.ASCENDING,
            f.nullOrder() == NullOrder.NULLS_LAST ? NullOrdering.NULLS_LAST : NullOrdering.NULLS_FIRST));
      }
    }
    return out;
  }

  /**
   * A Spark expression for {@code transform(source)}: the column for identity, the transform when
   * the catalog can evaluate it, the source column otherwise; null for void or a dropped column.
   */
  private org.apache.spark.sql.connector.expressions.Expression transformExpression(Schema schema,
      Transform transform, int sourceId) {
    List<String> path = schema.findColumnPath(sourceId);
    if (path == null || transform.isVoid()) {
      return null;
    }
    String column = quoted(path);
    NamedReference ref = Expressions.column(column);
    if (transform.isIdentity()) {
      return ref;
    }
    Type sourceType = schema.findType(sourceId);
    String name = transform.toString().trim().toLowerCase(Locale.ROOT);
    Matcher param = WITH_PARAM.matcher(name);
    org.apache.spark.sql.connector.expressions.Expression candidate = null;
    if (param.matches() && param.group(1).equals("bucket")) {
      int n = Integer.parseInt(param.group(2));
      if (canResolve("bucket", sourceType, true)) {
        candidate = Expressions.bucket(n, column);
      }
    } else if (param.matches() && param.group(1).equals("truncate")) {
      int width = Integer.parseInt(param.group(2));
      if (canResolve("truncate", sourceType, true)) {
        candidate = Expressions.apply("truncate", Expressions.literal(width), ref);
      }
    } else {
      switch (name) {
        case "year":
          candidate = canResolve("years", sourceType, false) ? Expressions.years(column) : null;
          break;
        case "month":
          candidate = canResolve("months", sourceType, false) ? Expressions.months(column) : null;
          break;
        case "day":
          candidate = canResolve("days", sourceType, false) ? Expressions.days(column) : null;
          break;
        case "hour":
          candidate = canResolve("hours", sourceType, false) ? Expressions.hours(column) : null;
          break;
        default:
          break;
      }
    }
    return candidate != null ? candidate : ref;
  }

  /**
   * Whether Spark can turn the transform into an expression: it loads the function of that name
   * (empty namespace) from the table's catalog and binds it to (the int parameter,) the column type.
   */
  private boolean canResolve(String function, Type sourceType, boolean intParameter) {
    String key = function + "/" + sourceType + "/" + intParameter;
    return resolvable.computeIfAbsent(key, k -> probe(function, sourceType, intParameter));
  }

  private boolean probe(String function, Type sourceType, boolean intParameter) {
    try {
      String name = target.name();
      int dot = name.indexOf('.');
      if (dot <= 0) {
        return false;
      }
      CatalogPlugin catalog = SparkSession.active().sessionState().catalogManager().catalog(name.substring(0, dot));
      if (!(catalog instanceof FunctionCatalog)) {
        return false;
      }
      UnboundFunction fn = ((FunctionCatalog) catalog).loadFunction(Identifier.of(new String[0], function));
      List<StructField> inputs = new ArrayList<>();
      if (intParameter) {
        inputs.add(DataTypes.createStructField("_0", DataTypes.IntegerType, false));
      }
      inputs.add(DataTypes.createStructField("_" + inputs.size(), SparkSchemas.convert(sourceType), true));
      fn.bind(new StructType(inputs.toArray(new StructField[0])));
      return true;
    } catch (Exception | LinkageError e) {
      return false; // no such function, or it does not take this type: cluster by the column instead
    }
  }

  /** The names from the top-level struct down to the field, or null when it is not reachable through structs. */
  private static String quoted(List<String> path) {
    return SqlTokens.quote(path);
  }

  /** Partition values, then the table's sort order: how rows are sorted within tasks (and ranged). */
  private SortOrder[] ordering() {
    List<SortOrder> out = new ArrayList<>();
    for (org.apache.spark.sql.connector.expressions.Expression e : partitionExpressions()) {
      out.add(Expressions.sort(e, SortDirection.ASCENDING));
    }
    out.addAll(sortOrderExpressions());
    return out.toArray(new SortOrder[0]);
  }

  @Override
  public Distribution requiredDistribution() {
    switch (distributionMode()) {
      case HASH: {
        List<org.apache.spark.sql.connector.expressions.Expression> clustering = partitionExpressions();
        return clustering.isEmpty() ? Distributions.unspecified() : Distributions.clustered(
            clustering.toArray(new org.apache.spark.sql.connector.expressions.Expression[0]));
      }
      case RANGE: {
        SortOrder[] ordering = ordering();
        return ordering.length == 0 ? Distributions.unspecified() : Distributions.ordered(ordering);
      }
      default:
        return Distributions.unspecified();
    }
  }

  /** Lets adaptive execution coalesce small partitions and split skewed ones. */
  @Override
  public boolean distributionStrictlyRequired() {
    return false;
  }

  /**
   * How much shuffled data one write task should get: the write option
   * {@code advisory-partition-size}, the table property
   * {@code write.spark.advisory-partition-size-bytes}, or else twice the target data file size
   * ({@code write.target-file-size-bytes}, 512 MB) and at least Spark's own
   * {@code spark.sql.adaptive.advisoryPartitionSizeInBytes} (64 MB), as Iceberg's writes do.
   * Adaptive execution splits a shuffle partition larger than this into several tasks, each
   * writing its own file of every partition it holds: shuffled rows take about twice their size in
   * Parquet, and with a small target file size an advisory size of the target alone split nearly
   * every partition into files far below the target.
   */
  @Override
  public long advisoryPartitionSizeInBytes() {
    // Spark refuses an advisory size without a distribution (unpartitioned tables, mode none)
    if (distributionMode() == DistributionMode.NONE
        || requiredDistribution() instanceof org.apache.spark.sql.connector.distributions.UnspecifiedDistribution) {
      return 0;
    }
    Map<String, String> props = target.metadata().properties();
    String value = info.options().get(ADVISORY_PARTITION_SIZE_OPTION);
    String source = "write option " + ADVISORY_PARTITION_SIZE_OPTION;
    if (value == null) {
      value = props.get(ADVISORY_PARTITION_SIZE);
      source = "table property " + ADVISORY_PARTITION_SIZE;
    }
    boolean fromTargetSize = value == null;
    if (fromTargetSize) {
      value = props.getOrDefault(TARGET_FILE_SIZE, Long.toString(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT));
      source = "table property " + TARGET_FILE_SIZE;
    }
    try {
      long size = Long.parseLong(value.trim());
      if (size > 0 && fromTargetSize) {
        long sparkAdvisory = ((Number) SQLConf.get().getConf(SQLConf.ADVISORY_PARTITION_SIZE_IN_BYTES()))
            .longValue();
        long shuffled = size > Long.MAX_VALUE / SHUFFLE_TO_PARQUET_RATIO ? Long.MAX_VALUE
            : size * SHUFFLE_TO_PARQUET_RATIO;
        return Math.max(shuffled, sparkAdvisory);
      } else if (size > 0) {
        return size;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw SparkExceptions.thrown(OptionErrors.invalidOption(source, value, "Invalid " + source + " of table "
        + target.name() + ": '" + value + "' (expected a positive number of bytes)"));
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return ordering();
  }

  @Override
  public BatchWrite toBatch() {
    SerializableConfiguration conf = new SerializableConfiguration(SparkSession.active().sessionState().newHadoopConf());
    return new FloeBatchWrite(target, target.metadata(), info.schema(), mode, overwriteFilter, conf);
  }

  /** One micro-batch of a streaming query: append mode, or complete mode (Spark truncates first). */
  @Override
  public StreamingWrite toStreaming() {
    if (mode != FloeBatchWrite.Mode.APPEND && mode != FloeBatchWrite.Mode.TRUNCATE) {
      throw new IllegalStateException("Cannot stream into table " + target.name() + " in write mode " + mode);
    }
    String elsewhere = target.elsewhereThanMain();
    if (elsewhere != null) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot stream into table " + target.name() + " "
          + elsewhere + ": streaming writes commit to main only (docs/branches.md); write each batch with "
          + "foreachBatch and writeTo(...).option(\"branch\", ...), or RESET spark.wap.branch / spark.wap.id");
    }
    SerializableConfiguration conf = new SerializableConfiguration(SparkSession.active().sessionState().newHadoopConf());
    return new FloeStreamingWrite(target.refreshed(), info, mode == FloeBatchWrite.Mode.TRUNCATE, conf);
  }
}
