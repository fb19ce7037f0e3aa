package io.floe.spark.extensions;

import io.floe.spark.source.LocalRowsScan;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.InterpretedProjection;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.LocalTableScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * A query answered from a Floe table's metadata (an aggregate pushed into the scan, see
 * {@code AggregatePushDown}) is a {@code Project} over a local scan of one row. Spark would plan it
 * as a projection over a {@code LocalTableScan} and run a job to evaluate the projection; this
 * strategy evaluates the projection on the driver instead, so that the plan is a bare
 * {@code LocalTableScan} that Spark collects without a job. Projections with subqueries or
 * non-deterministic expressions fall through to Spark.
 */
public final class FloeMetadataAnswerStrategy extends SparkStrategy {
  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    if (!(plan instanceof Project project) || !(project.child() instanceof DataSourceV2ScanRelation relation)
        || !(relation.scan() instanceof LocalRowsScan scan)) {
      return none();
    }
    List<Expression> exprs = new ArrayList<>();
    for (NamedExpression named : CollectionConverters.asJava(project.projectList())) {
      Expression e = (Expression) named; // every NamedExpression is an Expression
      if (!e.deterministic() || SubqueryExpression.hasSubquery(e)) {
        return none();
      }
      exprs.add(e);
    }
    List<Attribute> input = new ArrayList<>(CollectionConverters.asJava(relation.output()));
    // interpreted: a handful of rows is not worth generating and compiling code for
    InterpretedProjection projection = new InterpretedProjection(CollectionConverters.asScala(exprs).toList(),
        CollectionConverters.asScala(input).toList());
    List<InternalRow> rows = new ArrayList<>();
    for (InternalRow row : scan.rows()) {
      rows.add(projection.apply(row).copy());
    }
    SparkPlan exec = new LocalTableScanExec(project.output(), CollectionConverters.asScala(rows).toList(),
        Option.empty());
    return CollectionConverters.asScala(List.of(exec)).toList();
  }

  private static Seq<SparkPlan> none() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  /** Builds the strategy for {@code SparkSessionExtensions.injectPlannerStrategy}. */
  public static final class Builder extends AbstractFunction1<SparkSession, SparkStrategy> {
    @Override
    public SparkStrategy apply(SparkSession spark) {
      return new FloeMetadataAnswerStrategy();
    }
  }
}
