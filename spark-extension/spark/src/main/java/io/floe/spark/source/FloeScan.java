package io.floe.spark.source;

import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.expr.InclusiveMetricsEvaluator;
import io.floe.format.expr.Projections;
import io.floe.format.index.IndexPlanner;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.ScanMetrics;
import io.floe.format.scan.ScanPlan;
import io.floe.format.scan.TableScan;
import io.floe.format.sql.SqlTokens;
import io.floe.format.table.TableView;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.util.SparkValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportPartitioning;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.read.partitioning.Partitioning;
import org.apache.spark.sql.connector.read.partitioning.UnknownPartitioning;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One planned read of a snapshot: files are planned once, lazily, and reused for statistics and
 * partitions. Runtime filters (Spark's dynamic partition pruning on partition source columns) then
 * drop planned files whose partition values or column bounds cannot match, without re-reading
 * manifests.
 */
public final class FloeScan
    implements Scan, Batch, SupportsReportStatistics, SupportsRuntimeV2Filtering, SupportsReportPartitioning {
  private final TableView table;
  private final StructType requested;
  private final Expression filter;
  private final Predicate[] pushed;
  private final CaseInsensitiveStringMap options;
  private final boolean fileFiltering;
  /** The filters Spark evaluates on the rows this scan returns (Parquet skips by them; see createReaderFactory). */
  private final Predicate[] postScan;
  private ScanPlan plan = null;
  private final List<Predicate> runtimeFilters = new ArrayList<>();
  private int runtimeSkippedFiles = 0;
  private List<IndexPlanner.IndexUsage> indexUsages = List.of();
  private StructType output = null;
  private boolean singleTaskDecided = false;
  private SingleTaskPartitioning singleTask = null;
  /** Set on a copy made by {@link #groupedBy}: the files that one task must read together, and the columns named. */
  private final Function<FileScanTask, Object> groupOf;
  private final List<String> groupColumns;

  FloeScan(TableView table, StructType requested, Expression filter, Predicate[] pushed, Predicate[] postScan,
      CaseInsensitiveStringMap options, boolean fileFiltering) {
    this.table = table;
    this.requested = requested;
    this.filter = filter;
    this.pushed = pushed;
    this.postScan = postScan;
    this.options = options;
    this.fileFiltering = fileFiltering;
    this.groupOf = null;
    this.groupColumns = List.of();
  }

  /** {@code source}'s read with its planned files, grouped (see {@link #groupedBy}). */
  private FloeScan(FloeScan source, ScanPlan plan, List<IndexPlanner.IndexUsage> indexUsages, StructType output,
      Function<FileScanTask, Object> groupOf, List<String> groupColumns) {
    this.table = source.table;
    this.requested = source.requested;
    this.filter = source.filter;
    this.pushed = source.pushed;
    this.postScan = source.postScan;
    this.options = source.options;
    this.fileFiltering = source.fileFiltering;
    this.plan = plan;
    this.indexUsages = indexUsages;
    this.output = output;
    this.singleTaskDecided = true; // no keyed partitioning: the write's read needs none
    this.groupOf = groupOf;
    this.groupColumns = List.copyOf(groupColumns);
  }

  /**
   * A copy of this scan that reads the same planned files, the same columns, but packs together
   * the files whose identity-partition values of {@code columns} (top-level table columns) give
   * the same {@code keyOf}: every row with one key then comes from one task. For a write whose
   * rows are clustered by a key that depends on those columns only (see {@code
   * FloeClusteredInputWriteStrategy}). {@code keyOf} takes a row of the columns' values, as
   * Spark's internal values in {@code columns}' order, and returns a value with equality. Null
   * when some planned file's partition spec has no identity field of some column (its rows may
   * hold many values), or when one key's files hold more than a core's share of the read (see {@link
   * FilePacking#packGroups}), or for a row-level operation's scan.
   */
  public synchronized FloeScan groupedBy(List<String> columns, Function<InternalRow, Object> keyOf) {
    if (fileFiltering || columns.isEmpty()) {
      return null;
    }
    List<Types.NestedField> fields = new ArrayList<>();
    for (String name : columns) {
      Types.NestedField field = table.readSchema().asStruct().fields().stream()
          .filter(f -> f.name().equals(name)).findFirst().orElse(null);
      if (field == null || !field.type().isPrimitiveType()) {
        return null;
      }
      fields.add(field);
    }
    Map<FileScanTask, Object> keys = new IdentityHashMap<>(); // runtime filters keep these task objects
    for (FileScanTask task : plan().tasks()) {
      Object[] values = new Object[fields.size()];
      for (int i = 0; i < fields.size(); i++) {
        int pos = identityPosition(task.spec(), fields.get(i).fieldId());
        if (pos < 0) {
          return null;
        }
        Object value = task.file().partition().get(pos);
        values[i] = value == null ? null : SparkValues.toCatalyst(fields.get(i).type(), value);
      }
      keys.put(task, keyOf.apply(new GenericInternalRow(values)));
    }
    if (FilePacking.packGroups(table, options, plan().tasks(), t -> null, keys::get) == null) {
      return null;
    }
    // runtime filters keep planned task objects: every file read has its key here
    return new FloeScan(this, plan, indexUsages, readSchema(), keys::get, columns);
  }

  private static int identityPosition(PartitionSpec spec, int sourceId) {
    List<PartitionField> fields = spec.fields();
    for (int pos = 0; pos < fields.size(); pos++) {
      if (fields.get(pos).sourceId() == sourceId && fields.get(pos).transform().isIdentity()) {
        return pos;
      }
    }
    return -1;
  }

  /**
   * The requested columns, plus the key columns of a {@link SingleTaskPartitioning} that Spark did
   * not request (Spark uses a reported key only when the scan outputs it, and projects it away).
   * Planning happens here only when such a column could be missing.
   */
  @Override
  public synchronized StructType readSchema() {
    if (output == null) {
      output = requested;
      Set<String> names = new HashSet<>(Arrays.asList(requested.fieldNames()));
      boolean keyMayBeMissing = !fileFiltering && table.metadata().specs().stream()
          .flatMap(spec -> spec.fields().stream())
          .anyMatch(f -> f.transform().isIdentity() && table.readSchema().asStruct().field(f.sourceId()) != null
              && !names.contains(table.readSchema().asStruct().field(f.sourceId()).name()));
      SingleTaskPartitioning single = keyMayBeMissing ? singleTask() : null;
      if (single != null) {
        StructType all = SparkSchemas.convert(table.readSchema());
        for (Types.NestedField column : single.columns()) {
          if (!names.contains(column.name())) {
            output = output.add(all.apply(column.name()));
          }
        }
      }
    }
    return output;
  }

  /** Decided once, from the planned files before runtime filtering; null for a row-level operation's scan. */
  private synchronized SingleTaskPartitioning singleTask() {
    if (!singleTaskDecided) {
      singleTaskDecided = true;
      if (!fileFiltering) {
        List<FileScanTask> tasks = plan().tasks();
        singleTask = SingleTaskPartitioning.of(table.readSchema(), tasks,
            FilePacking.pack(table, options, tasks, this::partitionRow).length);
      }
    }
    return singleTask;
  }

  /** See {@link SingleTaskPartitioning}: one partition keyed by identity columns, or nothing. */
  @Override
  public synchronized Partitioning outputPartitioning() {
    SingleTaskPartitioning single = singleTask();
    Set<String> out = new HashSet<>(Arrays.asList(readSchema().fieldNames()));
    if (single == null || !single.columns().stream().allMatch(c -> out.contains(c.name()))) {
      return new UnknownPartitioning(0);
    }
    return single.partitioning();
  }

  @Override
  public String description() {
    String filters = Arrays.stream(pushed).map(Predicate::toString).collect(Collectors.joining(", "));
    return "FloeScan " + table.name() + (table.snapshot() == null ? "" : " snapshot=" + table.snapshot().snapshotId())
        + " filters=[" + filters + "]" + indexDescription() + runtimeDescription()
        + (groupOf == null ? "" : " groupedBy=[" + String.join(", ", groupColumns) + "]");
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /** {@code spark.readStream}: the table's appends, snapshot after snapshot (see {@link FloeMicroBatchStream}). */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    return new FloeMicroBatchStream(table, requested, filter, options);
  }

  /** The snapshot this scan reads, or null when the table has no snapshot (empty table). */
  public Long snapshotId() {
    return table.snapshot() == null ? null : table.snapshot().snapshotId();
  }

  /** The filter pushed into this scan, unbound, on table column names (alwaysTrue when none). */
  public Expression filterExpression() {
    return filter;
  }

  /**
   * Whether this is the scan of a row-level operation (DELETE, UPDATE, MERGE), which must return
   * every row of its files and is filtered by the files Spark finds to hold a matching row.
   */
  public boolean forRowLevelOperation() {
    return fileFiltering;
  }

  /** The planned files, after runtime filters. */
  public List<FileScanTask> tasks() {
    return plan().tasks();
  }

  /** The planned files and pruning counts (public for tests and EXPLAIN-like tooling). */
  public synchronized ScanPlan plan() {
    if (plan == null) {
      TableScan scan = TableScan.of(table.ops().io(), table.metadata()).useSnapshot(table.snapshot())
          .schema(table.readSchema()).filter(filter);
      IndexPruning.Pruned pruned = IndexPruning.prune(table, filter, scan.planFiles());
      plan = pruned.plan();
      indexUsages = pruned.usages();
      ScanReports.record(table.name(), plan, indexUsages);
    }
    return plan;
  }

  /** The indexes the scan used, with the files each pruned (EXPLAIN shows it). */
  private synchronized String indexDescription() {
    plan();
    if (indexUsages.isEmpty()) {
      return "";
    }
    return " indexes=[" + indexUsages.stream().map(u -> u.indexName() + " (pruned " + u.prunedFiles() + " of "
        + u.coveredFiles() + " covered files)").collect(Collectors.joining(", ")) + "]";
  }

  private synchronized String runtimeDescription() {
    if (runtimeFilters.isEmpty()) {
      return "";
    }
    return " runtimeFilters=[" + runtimeFilters.stream().map(Predicate::toString).collect(Collectors.joining(", "))
        + "]";
  }

  /**
   * The top-level columns that some partition field of the table (any spec) is derived from, among
   * those the scan reads (Spark resolves them against its output). For the scan of a row-level
   * operation, {@code _file} instead: Spark then finds the files that hold a matching row and
   * {@link #filter} keeps only those (see Spark's RowLevelOperationRuntimeGroupFiltering).
   */
  @Override
  public NamedReference[] filterAttributes() {
    if (fileFiltering) {
      return new NamedReference[] {
          org.apache.spark.sql.connector.expressions.Expressions.column(FloeParquetReader.FILE_COLUMN)};
    }
    Schema schema = table.readSchema();
    Set<String> projected = Set.of(requested.fieldNames());
    Set<String> names = new LinkedHashSet<>();
    for (PartitionSpec spec : table.metadata().specs()) {
      for (PartitionField f : spec.fields()) {
        Types.NestedField top = schema.asStruct().fields().stream()
            .filter(field -> field.fieldId() == f.sourceId()).findFirst().orElse(null);
        // Spark resolves these against the scan's output: only columns the scan reads can be filtered on
        if (top != null && !f.transform().isVoid() && projected.contains(top.name())) {
          names.add(top.name());
        }
      }
    }
    return names.stream()
        .map(n -> org.apache.spark.sql.connector.expressions.Expressions.column(SqlTokens.quote(n)))
        .toArray(NamedReference[]::new);
  }

  /**
   * Drops planned files that cannot hold rows matching {@code predicates}: for a row-level
   * operation's scan, files not named by {@code _file IN (...)}; then partition values through
   * each spec's inclusive projection, then column bounds. Predicates that cannot be converted are
   * ignored (Spark still applies them to the rows).
   */
  @Override
  public synchronized void filter(Predicate[] predicates) {
    Expression expr = Expressions.alwaysTrue();
    Set<String> files = null;
    for (Predicate p : predicates) {
      Set<String> named = fileFiltering ? filePaths(p) : null;
      if (named != null) {
        if (files != null) {
          named.retainAll(files);
        }
        files = named;
        runtimeFilters.add(p);
        continue;
      }
      Expression converted = SparkFilters.convert(p);
      if (converted != null) {
        expr = Expressions.and(expr, converted);
        runtimeFilters.add(p);
      }
    }
    if (files != null) {
      Set<String> named = files;
      keepOnly(task -> named.contains(task.file().path()));
    }
    if (expr.op() == Expression.Operation.TRUE) {
      return;
    }
    Expression runtimeFilter = expr;
    Schema schema = table.readSchema();
    InclusiveMetricsEvaluator metrics;
    try {
      metrics = new InclusiveMetricsEvaluator(schema, expr);
    } catch (RuntimeException e) {
      return; // a filter the schema cannot bind prunes nothing
    }
    Map<Integer, Evaluator> partitionEvaluators = new HashMap<>();
    keepOnly(task -> {
      Evaluator partitions = partitionEvaluators.computeIfAbsent(task.spec().specId(),
          id -> partitionEvaluator(task.spec(), runtimeFilter));
      return (partitions == null || partitions.eval(task.file().partition())) && metrics.eval(task.file());
    });
  }

  /**
   * The file paths a runtime predicate {@code _file IN (...)} or {@code _file = ...} keeps, or null
   * when it is not such a predicate.
   */
  private static Set<String> filePaths(Predicate p) {
    org.apache.spark.sql.connector.expressions.Expression[] args = p.children();
    if (!("IN".equals(p.name()) || "=".equals(p.name())) || args.length == 0
        || !(args[0] instanceof NamedReference ref) || ref.fieldNames().length != 1
        || !FloeParquetReader.FILE_COLUMN.equals(ref.fieldNames()[0])) {
      return null;
    }
    Set<String> paths = new HashSet<>();
    for (int i = 1; i < args.length; i++) {
      if (!(args[i] instanceof Literal<?> literal)) {
        return null;
      }
      if (literal.value() != null) {
        paths.add(literal.value().toString());
      }
    }
    return paths;
  }

  /** Drops the planned files {@code keep} rejects, counting them as skipped by runtime filtering. */
  private void keepOnly(java.util.function.Predicate<FileScanTask> keep) {
    ScanPlan planned = plan();
    List<FileScanTask> kept = new ArrayList<>();
    for (FileScanTask task : planned.tasks()) {
      if (keep.test(task)) {
        kept.add(task);
      }
    }
    int dropped = planned.tasks().size() - kept.size();
    runtimeSkippedFiles += dropped;
    ScanMetrics m = planned.metrics();
    plan = new ScanPlan(kept, new ScanMetrics(m.totalManifests(), m.scannedManifests(), m.skippedManifests(),
        m.totalDataFiles(), kept.size(), m.skippedDataFiles() + dropped,
        kept.stream().mapToInt(t -> t.deletes().size()).sum()));
    ScanReports.record(table.name(), plan, indexUsages);
  }

  private static Evaluator partitionEvaluator(PartitionSpec spec, Expression expr) {
    try {
      return new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(expr));
    } catch (RuntimeException e) {
      return null; // cannot project: keep every file of this spec
    }
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return FloeScanMetrics.supported();
  }

  /** Reported by Spark once the input partitions are final, that is after runtime filtering. */
  @Override
  public synchronized CustomTaskMetric[] reportDriverMetrics() {
    ScanPlan planned = plan();
    ScanMetrics m = planned.metrics();
    long bytes = planned.tasks().stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
    return new CustomTaskMetric[] {
        FloeScanMetrics.value(FloeScanMetrics.TOTAL_MANIFESTS, m.totalManifests()),
        FloeScanMetrics.value(FloeScanMetrics.SCANNED_MANIFESTS, m.scannedManifests()),
        FloeScanMetrics.value(FloeScanMetrics.SKIPPED_MANIFESTS, m.skippedManifests()),
        FloeScanMetrics.value(FloeScanMetrics.RESULT_DATA_FILES, m.resultDataFiles()),
        FloeScanMetrics.value(FloeScanMetrics.SKIPPED_DATA_FILES, m.skippedDataFiles()),
        FloeScanMetrics.value(FloeScanMetrics.RUNTIME_SKIPPED_DATA_FILES, runtimeSkippedFiles),
        FloeScanMetrics.value(FloeScanMetrics.INDEX_SKIPPED_DATA_FILES,
            indexUsages.stream().mapToInt(IndexPlanner.IndexUsage::prunedFiles).sum()),
        FloeScanMetrics.value(FloeScanMetrics.RESULT_DATA_BYTES, bytes)};
  }

  /** One task per group of files, packed as Spark packs the files of a plain Parquet scan (see {@link FilePacking}). */
  @Override
  public synchronized InputPartition[] planInputPartitions() {
    if (!table.isTimeTravel()) {
      QueryReads.record(SparkSession.active().sparkContext(), QueryReads.key(table.name(), table.branch()),
          snapshotId(), filter);
    }
    InputPartition[] packed = groupOf == null ? null
        : FilePacking.packGroups(table, options, plan().tasks(), this::partitionRow, groupOf);
    if (packed == null) {
      packed = FilePacking.pack(table, options, plan().tasks(), this::partitionRow);
    }
    if (singleTaskDecided && singleTask != null) { // every partition carries the key: one, or none after runtime filters
      for (int i = 0; i < packed.length; i++) {
        packed[i] = new FloeKeyedInputPartition(packed[i], singleTask.key());
      }
    }
    return packed;
  }

  private Types.StructType partitionUnionType = null;

  /** The file's partition tuple for the {@code _partition} metadata column, or null when it is not read. */
  private org.apache.spark.sql.catalyst.InternalRow partitionRow(FileScanTask task) {
    if (!isMetadataColumn(MetadataColumns.PARTITION_COLUMN)) {
      return null;
    }
    if (partitionUnionType == null) {
      partitionUnionType = table.partitionUnionType();
    }
    return MetadataColumns.partitionRow(partitionUnionType, task.spec(), task.file().partition());
  }

  /** Whether {@code name} is requested as a metadata column (a table column of that name wins). */
  private boolean isMetadataColumn(String name) {
    return Arrays.asList(requested.fieldNames()).contains(name)
        && table.readSchema().asStruct().fields().stream().noneMatch(f -> f.name().equalsIgnoreCase(name));
  }

  /** Marks requested metadata columns so the reader fills them in rather than reading them from files. */
  private StructType markMetadataColumns(StructType schema) {
    org.apache.spark.sql.types.StructField[] fields = schema.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      org.apache.spark.sql.types.StructField f = fields[i];
      boolean metadataName = Set.of(FloeParquetReader.FILE_COLUMN, FloeParquetReader.POS_COLUMN,
          MetadataColumns.SPEC_ID_COLUMN, MetadataColumns.PARTITION_COLUMN).contains(f.name());
      if (metadataName && isMetadataColumn(f.name()) && !f.metadata().contains(FloeParquetReader.METADATA_COLUMN_KEY)) {
        fields[i] = new org.apache.spark.sql.types.StructField(f.name(), f.dataType(), f.nullable(),
            new org.apache.spark.sql.types.MetadataBuilder().withMetadata(f.metadata())
                .putBoolean(FloeParquetReader.METADATA_COLUMN_KEY, true).build());
      }
    }
    return new StructType(fields);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    Schema schema = table.readSchema();
    StructType withIds = markMetadataColumns(SparkSchemas.withFieldIds(schema, readSchema()));
    // a row-level operation's scan must return every row of its files: no skipping inside them
    org.apache.spark.sql.sources.Filter[] skip = fileFiltering ? null
        : org.apache.spark.sql.internal.connector.PredicateUtils$.MODULE$.toV1(postScan);
    ScanReports.readerFactoryCreated(table.name());
    return new FloeCombinedReaderFactory(ReaderSetup.of(table, snapshotId(), options).files(withIds, skip));
  }

  /**
   * Row count and size of the planned files, and per-column statistics (distinct counts from the
   * table's Puffin statistics, bounds and counts from the manifests): see
   * {@link ColumnStatisticsEstimator}.
   */
  @Override
  public Statistics estimateStatistics() {
    return ColumnStatisticsEstimator.estimate(table, requested, plan().tasks());
  }
}
