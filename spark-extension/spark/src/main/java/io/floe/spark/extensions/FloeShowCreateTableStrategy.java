package io.floe.spark.extensions;

import io.floe.spark.FloeTable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.ResolvedTable;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ShowCreateTable;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.constraints.Constraint;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.ShowCreateTableExec;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * {@code SHOW CREATE TABLE} of a Floe table prints a statement that runs back: Spark's own command
 * over a view of the table whose properties are {@link FloeTable#createStatementProperties()} (no
 * {@code current-snapshot-id} or {@code format}, and no LOCATION for a table in its own warehouse
 * folder). SHOW TBLPROPERTIES and DESCRIBE still show every property.
 */
public final class FloeShowCreateTableStrategy extends SparkStrategy {
  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    if (!(plan instanceof ShowCreateTable show) || show.asSerde()
        || !(show.child() instanceof ResolvedTable resolved)
        || !(resolved.table() instanceof FloeTable table)) {
      return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
    }
    ResolvedTable view = new ResolvedTable(resolved.catalog(), resolved.identifier(), new CreateStatementView(table),
        resolved.output());
    SparkPlan exec = new ShowCreateTableExec(show.output(), view);
    return CollectionConverters.asScala(List.of(exec)).toList();
  }

  /** The table as SHOW CREATE TABLE should see it. */
  private record CreateStatementView(FloeTable table) implements Table {
    @Override
    public String name() {
      return table.name();
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
      return table.schema();
    }

    @Override
    public Column[] columns() {
      return table.columns();
    }

    @Override
    public Transform[] partitioning() {
      return table.partitioning();
    }

    @Override
    public Map<String, String> properties() {
      return table.createStatementProperties();
    }

    @Override
    public Set<TableCapability> capabilities() {
      return table.capabilities();
    }

    @Override
    public Constraint[] constraints() {
      return table.constraints();
    }
  }

  /** Builds the strategy for {@code SparkSessionExtensions.injectPlannerStrategy}. */
  public static final class Builder extends AbstractFunction1<SparkSession, SparkStrategy> {
    @Override
    public SparkStrategy apply(SparkSession spark) {
      return new FloeShowCreateTableStrategy();
    }
  }
}
