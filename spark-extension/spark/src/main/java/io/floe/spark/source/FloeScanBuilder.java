package io.floe.spark.source;

import io.floe.format.expr.Binder;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Collects the columns and filters of a read. Filters prune files (partition values, column
 * bounds); Spark still evaluates every filter on the rows it reads, so pruning only has to be safe,
 * except a filter that selects whole partitions (see {@link WholePartitionFilters}), which planning
 * applies exactly.
 */
public final class FloeScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns, SupportsPushDownAggregates {
  private final TableView table;
  private final CaseInsensitiveStringMap options;
  private StructType requested;
  private Predicate[] pushed = new Predicate[0];
  private Predicate[] postScan = new Predicate[0];
  private Expression filter = Expressions.alwaysTrue();
  private final Consumer<FloeScan> onBuild;
  /** Whether every pushed filter selects whole files (nothing left for Spark to check on rows). */
  private boolean filterExact = true;
  private Aggregation answeredAggregation = null;
  private LocalRowsScan aggregateAnswer = null;
  private LocalRowsScan pushedAggregate = null;

  public FloeScanBuilder(TableView table, CaseInsensitiveStringMap options) {
    this(table, options, null);
  }

  private FloeScanBuilder(TableView table, CaseInsensitiveStringMap options, Consumer<FloeScan> onBuild) {
    this.table = table; // FloeTable applied the time-travel read options (snapshot-id, as-of-timestamp, ...)
    this.options = options;
    this.requested = SparkSchemas.convert(table.readSchema());
    this.onBuild = onBuild;
  }

  /**
   * The scan of a row-level operation (copy-on-write, merge-on-read): it plans the files that may
   * hold rows matching the operation's condition, and Spark's runtime group filter on {@code _file}
   * then keeps only the files that really hold one. Filters only prune files, never rows: the
   * operation gets every row of every file it rewrites. {@code onBuild} receives each built scan.
   */
  public static FloeScanBuilder forRowLevelOperation(TableView table, CaseInsensitiveStringMap options,
      Consumer<FloeScan> onBuild) {
    return new FloeScanBuilder(table, options, onBuild);
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    List<Predicate> accepted = new ArrayList<>();
    List<Predicate> postScan = new ArrayList<>();
    Expression combined = Expressions.alwaysTrue();
    for (Predicate p : predicates) {
      Expression converted = SparkFilters.convert(p);
      if (converted != null && bindsTo(converted)) {
        combined = Expressions.and(combined, converted);
        accepted.add(p);
        if (WholePartitionFilters.selectsWholePartitions(p, converted, table.metadata().specs())) {
          continue; // every row of every planned file matches: Spark need not check again
        }
      }
      postScan.add(p);
    }
    this.filterExact = postScan.isEmpty();
    this.filter = combined;
    this.pushed = accepted.toArray(new Predicate[0]);
    this.postScan = postScan.toArray(new Predicate[0]);
    return this.postScan.clone();
  }

  /** Filters on columns the format cannot bind (metadata columns, unsupported literals) stay with Spark. */
  private boolean bindsTo(Expression expr) {
    try {
      Binder.bind(table.readSchema().asStruct(), expr);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed;
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.requested = requiredSchema;
  }

  /**
   * Spark asks first whether the aggregation can be answered completely (then it drops its own
   * aggregate), then pushes it: both are answered from manifest metrics or refused (see
   * {@link AggregatePushDown}); a partial push is never accepted.
   */
  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return answer(aggregation) != null;
  }

  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    pushedAggregate = answer(aggregation);
    return pushedAggregate != null;
  }

  private LocalRowsScan answer(Aggregation aggregation) {
    if (aggregation != answeredAggregation) {
      answeredAggregation = aggregation;
      aggregateAnswer = onBuild == null && filterExact && options.get(io.floe.spark.util.FileSetRegistry.OPTION) == null
          && AggregatePushDown.enabled() ? AggregatePushDown.answer(table, filter, aggregation) : null;
    }
    return aggregateAnswer;
  }

  @Override
  public Scan build() {
    if (pushedAggregate != null) {
      return pushedAggregate;
    }
    String fileSetId = options.get(io.floe.spark.util.FileSetRegistry.OPTION);
    if (fileSetId != null) {
      return new FileSetScan(table, requested, fileSetId); // a rewrite_data_files file group
    }
    FloeScan scan = new FloeScan(table, requested, filter, pushed, postScan, options, onBuild != null);
    if (onBuild != null) {
      onBuild.accept(scan);
    }
    return scan;
  }
}
