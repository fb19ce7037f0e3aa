package io.floe.spark.extensions;

import io.floe.spark.source.FloeScan;
import io.floe.spark.util.DriverReadLimit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SessionWindow$;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate;
import org.apache.spark.sql.catalyst.optimizer.NormalizeFloatingNumbers$;
import org.apache.spark.sql.catalyst.planning.PhysicalAggregation$;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.util.UnsafeRowUtils$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.types.DataType;
import scala.Option;
import scala.Tuple4;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Plans a read of a Floe table whose planned files are few rows (after partition, bounds and index
 * pruning), with the filter and projection above it, as a {@link FloeLocalReadExec}: the driver
 * reads those files itself when the query runs, so that a point lookup returns without a Spark job
 * (whose scheduling costs more than reading one small file). Larger scans, the scans of row-level
 * operations, and filters or projections with subqueries or non-deterministic expressions go to
 * Spark's own planning.
 */
public final class FloeLocalReadStrategy extends SparkStrategy {
  /**
   * Spark setting: rows in the planned files up to which the driver reads them itself (default
   * {@value #DEFAULT_MAX_ROWS}); 0 always reads with a Spark job.
   */
  public static final String MAX_ROWS_CONF = "spark.floe.read.local-max-rows";
  static final long DEFAULT_MAX_ROWS = 100_000L;
  /**
   * Spark setting: bytes of planned data files (their size on storage) up to which the driver reads
   * them itself (default {@value #DEFAULT_MAX_BYTES}, 32 MiB); 0 always reads with a Spark job.
   */
  public static final String MAX_BYTES_CONF = "spark.floe.read.local-max-bytes";
  static final long DEFAULT_MAX_BYTES = 32L << 20;
  /**
   * Spark setting: rows in the planned files up to which an aggregate over a small read is
   * computed on the driver as well (default {@value #DEFAULT_AGGREGATE_MAX_ROWS}); 0 aggregates
   * with a Spark job. The byte limit is {@value #MAX_BYTES_CONF}'s, and 0 in
   * {@value #MAX_ROWS_CONF} turns this off too.
   */
  public static final String AGGREGATE_MAX_ROWS_CONF = "spark.floe.read.local-aggregate-max-rows";
  static final long DEFAULT_AGGREGATE_MAX_ROWS = 250_000L;

  private final SparkSession spark;

  FloeLocalReadStrategy(SparkSession spark) {
    this.spark = spark;
  }

  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    SparkPlan exec = plan instanceof Aggregate aggregate ? localAggregate(aggregate) : localRead(plan, this::readLimit);
    return exec == null ? none() : CollectionConverters.asScala(List.of(exec)).toList();
  }

  /** The limit of a plain driver read (read when a Floe scan is met: a bad value fails only those queries). */
  private DriverReadLimit readLimit() {
    return DriverReadLimit.of(spark.conf(), MAX_ROWS_CONF, DEFAULT_MAX_ROWS, MAX_BYTES_CONF, DEFAULT_MAX_BYTES,
        "reads every scan");
  }

  /**
   * {@code aggregate} computed on the driver over a driver read of its input, when every
   * aggregate function is declarative (count, sum, avg, min, max, ...), none is DISTINCT or has a
   * FILTER clause, and the read's files hold at most {@value #AGGREGATE_MAX_ROWS_CONF} rows within
   * the byte limit, and every grouping key is one whose equal values have equal bytes
   * ({@link #groupsByBytes}); else null. The rows stream through the aggregate and only its
   * result is kept, which is why its row limit is larger than a plain read's (whose rows are all
   * returned).
   */
  private SparkPlan localAggregate(Aggregate aggregate) {
    Option<Tuple4<Seq<NamedExpression>, Seq<AggregateExpression>, Seq<NamedExpression>, LogicalPlan>> parts =
        PhysicalAggregation$.MODULE$.unapply(aggregate);
    if (parts.isEmpty()) {
      return null;
    }
    Seq<NamedExpression> grouping = parts.get()._1();
    Seq<AggregateExpression> functions = parts.get()._2();
    Seq<NamedExpression> results = parts.get()._3();
    for (AggregateExpression function : CollectionConverters.asJava(functions)) {
      if (!(function.aggregateFunction() instanceof DeclarativeAggregate) || function.isDistinct()
          || function.filter().isDefined() || !plain(function)) {
        return null;
      }
    }
    for (NamedExpression key : CollectionConverters.asJava(grouping)) {
      if (!groupsByBytes(key)) {
        return null;
      }
    }
    List<NamedExpression> named = new ArrayList<>(CollectionConverters.asJava(grouping));
    named.addAll(CollectionConverters.asJava(results));
    for (NamedExpression e : named) {
      if (!plain((Expression) e)) { // every NamedExpression is an Expression
        return null;
      }
    }
    FloeLocalReadExec read = localRead(parts.get()._4(), () -> {
      DriverReadLimit readLimit = readLimit();
      if (readLimit.maxRows() == 0) {
        return readLimit; // every driver read is off
      }
      long maxRows = DriverReadLimit.parse(AGGREGATE_MAX_ROWS_CONF, spark.conf().get(AGGREGATE_MAX_ROWS_CONF, null),
          DEFAULT_AGGREGATE_MAX_ROWS, "rows", "aggregates every scan");
      return new DriverReadLimit(maxRows, readLimit.maxBytes());
    });
    return read == null ? null : new FloeLocalAggregateExec(grouping, functions, results, read);
  }

  /** {@code plan}, a [Project over] [Filter over] a Floe scan within {@code limit}, read on the driver; else null. */
  private FloeLocalReadExec localRead(LogicalPlan plan, Supplier<DriverReadLimit> limit) {
    LogicalPlan below = plan;
    Project project = null;
    if (below instanceof Project p) {
      project = p;
      below = p.child();
    }
    Filter filter = null;
    if (below instanceof Filter f) {
      filter = f;
      below = f.child();
    }
    if (!(below instanceof DataSourceV2ScanRelation relation) || !(relation.scan() instanceof FloeScan scan)
        || scan.forRowLevelOperation()) {
      return null;
    }
    if (filter != null && !plain(filter.condition())) {
      return null;
    }
    List<NamedExpression> projectList = new ArrayList<>();
    if (project != null) {
      for (NamedExpression named : CollectionConverters.asJava(project.projectList())) {
        if (!plain((Expression) named)) { // every NamedExpression is an Expression
          return null;
        }
        projectList.add(named);
      }
    } else {
      projectList.addAll(CollectionConverters.asJava(relation.output()));
    }
    if (!limit.get().admits(scan.tasks(), true)) {
      return null;
    }
    Seq<Attribute> scanOutput = CollectionConverters.asScala(new ArrayList<Attribute>(
        CollectionConverters.asJava(relation.output()))).toList();
    Seq<Attribute> output = project != null ? project.output() : scanOutput;
    return new FloeLocalReadExec(output, scan, scanOutput,
        filter != null ? Option.apply(filter.condition()) : Option.empty(),
        CollectionConverters.asScala(projectList).toList());
  }

  /**
   * Whether rows whose {@code key} values have equal bytes are exactly one group, as the driver's
   * aggregate groups them: not for floats and doubles (Spark groups -0.0 with 0.0 and every NaN
   * together), collated strings (compared by their collation), or session windows (Spark merges
   * the sessions of a group's rows first).
   */
  private static boolean groupsByBytes(NamedExpression key) {
    DataType type = ((Expression) key).dataType(); // every NamedExpression is an Expression
    return !NormalizeFloatingNumbers$.MODULE$.needNormalize(type) && UnsafeRowUtils$.MODULE$.isBinaryStable(type)
        && !key.metadata().contains(SessionWindow$.MODULE$.marker());
  }

  /** Whether the driver may evaluate {@code e} row by row as a task would (also for {@link FloeLocalWriteStrategy}). */
  static boolean plain(Expression e) {
    return e.deterministic() && !SubqueryExpression.hasSubquery(e);
  }

  /** No plan: Spark's own strategies plan the node. */
  static Seq<SparkPlan> none() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  /** Builds the strategy for {@code SparkSessionExtensions.injectPlannerStrategy}. */
  public static final class Builder extends AbstractFunction1<SparkSession, SparkStrategy> {
    @Override
    public SparkStrategy apply(SparkSession spark) {
      return new FloeLocalReadStrategy(spark);
    }
  }
}
