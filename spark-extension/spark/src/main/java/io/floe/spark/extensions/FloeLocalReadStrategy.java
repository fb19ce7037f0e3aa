package io.floe.spark.extensions;

import io.floe.spark.source.FloeScan;
import io.floe.spark.util.DriverReadLimit;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import scala.Option;
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

  private final SparkSession spark;

  FloeLocalReadStrategy(SparkSession spark) {
    this.spark = spark;
  }

  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
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
      return none();
    }
    if (filter != null && !plain(filter.condition())) {
      return none();
    }
    List<NamedExpression> projectList = new ArrayList<>();
    if (project != null) {
      for (NamedExpression named : CollectionConverters.asJava(project.projectList())) {
        if (!plain((Expression) named)) { // every NamedExpression is an Expression
          return none();
        }
        projectList.add(named);
      }
    } else {
      projectList.addAll(CollectionConverters.asJava(relation.output()));
    }
    DriverReadLimit limit = DriverReadLimit.of(spark.conf(), MAX_ROWS_CONF, DEFAULT_MAX_ROWS, MAX_BYTES_CONF,
        DEFAULT_MAX_BYTES, "reads every scan");
    if (!limit.admits(scan.tasks(), true)) {
      return none();
    }
    Seq<Attribute> scanOutput = CollectionConverters.asScala(new ArrayList<Attribute>(
        CollectionConverters.asJava(relation.output()))).toList();
    Seq<Attribute> output = project != null ? project.output() : scanOutput;
    SparkPlan exec = new FloeLocalReadExec(output, scan, scanOutput,
        filter != null ? Option.apply(filter.condition()) : Option.empty(),
        CollectionConverters.asScala(projectList).toList());
    return CollectionConverters.asScala(List.of(exec)).toList();
  }

  /** Whether the driver may evaluate {@code e} row by row as a task would. */
  private static boolean plain(Expression e) {
    return e.deterministic() && !SubqueryExpression.hasSubquery(e);
  }

  private static Seq<SparkPlan> none() {
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
