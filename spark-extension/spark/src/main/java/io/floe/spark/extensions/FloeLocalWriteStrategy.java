package io.floe.spark.extensions;

import io.floe.spark.util.DriverReadLimit;
import io.floe.spark.write.DriverWrite;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OneRowRelation;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions;
import org.apache.spark.sql.catalyst.plans.logical.RepartitionOperation;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Plans an {@code INSERT INTO} or {@code INSERT OVERWRITE} of a Floe table whose rows the query
 * already holds ({@code VALUES}, literals: a local relation, maybe projected, that the write asks
 * Spark to cluster and sort) as a {@link FloeLocalWriteExec}: the driver writes and commits those
 * rows itself, as the job's one task would, without the Spark job (whose scheduling costs several
 * times what writing a few rows does). Inserts of more rows than {@value #MAX_ROWS_CONF} allows,
 * of rows a query computes from tables, row-level operations, and projections or orderings with
 * subqueries or non-deterministic expressions go to Spark's own planning.
 */
public final class FloeLocalWriteStrategy extends SparkStrategy {
  /**
   * Spark setting: rows of an insert's literal rows up to which the driver writes them itself
   * (default {@value #DEFAULT_MAX_ROWS}); 0 always writes with a Spark job.
   */
  public static final String MAX_ROWS_CONF = "spark.floe.write.local-max-rows";
  static final long DEFAULT_MAX_ROWS = 10_000L;

  private final SparkSession spark;

  FloeLocalWriteStrategy(SparkSession spark) {
    this.spark = spark;
  }

  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    SparkPlan exec = null;
    if (plan instanceof AppendData append) {
      exec = localWrite(append.table(), append.write(), append.query());
    } else if (plan instanceof OverwriteByExpression overwrite) {
      exec = localWrite(overwrite.table(), overwrite.write(), overwrite.query());
    } else if (plan instanceof OverwritePartitionsDynamic overwrite) {
      exec = localWrite(overwrite.table(), overwrite.write(), overwrite.query());
    }
    return exec == null ? FloeLocalReadStrategy.none() : CollectionConverters.asScala(List.of(exec)).toList();
  }

  /**
   * The write of {@code query}'s rows to {@code table} on the driver, when {@code write} is a Floe
   * append or overwrite and {@code query} is [a sort over] [repartitions over] [a projection over]
   * literal rows within the limit; else null.
   */
  private SparkPlan localWrite(Object table, Option<Write> write, LogicalPlan query) {
    if (write.isEmpty() || !DriverWrite.isPlainWrite(write.get()) || !(table instanceof DataSourceV2Relation relation)) {
      return null;
    }
    LogicalPlan node = query;
    List<SortOrder> ordering = new ArrayList<>();
    if (node instanceof Sort sort) {
      for (SortOrder order : CollectionConverters.asJava(sort.order())) {
        if (!FloeLocalReadStrategy.plain(order)) {
          return null;
        }
        ordering.add(order);
      }
      node = sort.child();
    }
    while (node instanceof RepartitionOperation || node instanceof RebalancePartitions) {
      node = node.children().head(); // one child: it only says how a job spreads the rows over tasks
    }
    Project project = null;
    if (node instanceof Project p) {
      project = p;
      node = p.child();
    }
    Seq<InternalRow> data;
    Seq<Attribute> dataOutput;
    if (node instanceof LocalRelation local && !local.isStreaming()) {
      data = local.data();
      dataOutput = local.output();
    } else if (node instanceof OneRowRelation) {
      data = CollectionConverters.asScala(List.of(InternalRow.empty())).toList();
      dataOutput = CollectionConverters.asScala(List.<Attribute>of()).toList();
    } else {
      return null;
    }
    List<NamedExpression> projectList = new ArrayList<>();
    if (project != null) {
      for (NamedExpression named : CollectionConverters.asJava(project.projectList())) {
        if (!FloeLocalReadStrategy.plain((Expression) named)) { // every NamedExpression is an Expression
          return null;
        }
        projectList.add(named);
      }
    } else {
      projectList.addAll(CollectionConverters.asJava(dataOutput));
    }
    long maxRows = DriverReadLimit.parse(MAX_ROWS_CONF, spark.conf().get(MAX_ROWS_CONF, null), DEFAULT_MAX_ROWS,
        "rows", "writes every insert");
    if (maxRows == 0 || data.size() > maxRows) {
      return null; // 0: every insert is a job, even one of no row
    }
    return new FloeLocalWriteExec(relation.name(), write.get(), data, dataOutput,
        CollectionConverters.asScala(projectList).toList(), CollectionConverters.asScala(ordering).toList(),
        () -> refreshCache(relation));
  }

  /**
   * What Spark does after a write to a v2 table: the cached queries that read the table (not as of
   * an older snapshot) are computed again.
   */
  private void refreshCache(DataSourceV2Relation relation) {
    org.apache.spark.sql.classic.SparkSession session = (org.apache.spark.sql.classic.SparkSession) spark;
    Option<CatalogPlugin> catalog = relation.catalog();
    Option<Identifier> ident = relation.identifier();
    if (catalog.isDefined() && ident.isDefined()) {
      List<String> nameParts = new ArrayList<>();
      nameParts.add(catalog.get().name());
      nameParts.addAll(List.of(ident.get().namespace()));
      nameParts.add(ident.get().name());
      session.sharedState().cacheManager().recacheTableOrView(session,
          CollectionConverters.asScala(nameParts).toList(), false);
    } else {
      session.sharedState().cacheManager().recacheByPlan(session, relation);
    }
  }

  /** Builds the strategy for {@code SparkSessionExtensions.injectPlannerStrategy}. */
  public static final class Builder extends AbstractFunction1<SparkSession, SparkStrategy> {
    @Override
    public SparkStrategy apply(SparkSession spark) {
      return new FloeLocalWriteStrategy(spark);
    }
  }
}
