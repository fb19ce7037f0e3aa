package io.floe.spark.extensions;

import io.floe.format.sql.SqlTokens;
import io.floe.spark.FloeCatalog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTableOrView;
import org.apache.spark.sql.catalyst.plans.logical.AnalyzeColumn;
import org.apache.spark.sql.catalyst.plans.logical.AnalyzeTable;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code ANALYZE TABLE} on a Floe table, which Spark parses but then refuses for every v2 table, as
 * a call of {@code compute_table_stats}:
 * <pre>
 *   ANALYZE TABLE t COMPUTE STATISTICS [NOSCAN]      -> columns => empty array: nothing to compute
 *                                                       (row count and size are always in Floe's metadata)
 *   ANALYZE TABLE t COMPUTE STATISTICS FOR COLUMNS a, b -> columns => array('a', 'b')
 *   ANALYZE TABLE t COMPUTE STATISTICS FOR ALL COLUMNS  -> every top-level primitive column
 * </pre>
 * Plans of other statements, and ANALYZE of tables outside Floe catalogs (or of temporary views),
 * are left to Spark.
 */
final class AnalyzeStatement {
  /** Why a Floe ANALYZE cannot run; the parser turns it into a ParseException. */
  static final class Unsupported extends Exception {
    Unsupported(String message) {
      super(message);
    }
  }

  private final String catalog;
  private final List<String> table;
  private final List<String> columns; // null: all; empty: none

  private AnalyzeStatement(String catalog, List<String> table, List<String> columns) {
    this.catalog = catalog;
    this.table = table;
    this.columns = columns;
  }

  /** The Floe ANALYZE {@code plan} stands for, or null when it is another statement or table. */
  static AnalyzeStatement of(LogicalPlan plan, SparkSession spark) throws Unsupported {
    LogicalPlan child;
    List<String> columns;
    boolean partitioned = false;
    if (plan instanceof AnalyzeTable) {
      AnalyzeTable analyze = (AnalyzeTable) plan;
      child = analyze.child();
      partitioned = !analyze.partitionSpec().isEmpty();
      columns = List.of();
    } else if (plan instanceof AnalyzeColumn) {
      AnalyzeColumn analyze = (AnalyzeColumn) plan;
      child = analyze.child();
      columns = analyze.allColumns() || analyze.columnNames().isEmpty() ? null
          : new ArrayList<>(CollectionConverters.asJava(analyze.columnNames().get()));
    } else {
      return null;
    }
    if (!(child instanceof UnresolvedTableOrView)) {
      return null;
    }
    List<String> parts = new ArrayList<>(CollectionConverters.asJava(((UnresolvedTableOrView) child).multipartIdentifier()));
    if (parts.size() == 1 && spark.sessionState().catalog().getTempView(parts.get(0)).isDefined()) {
      return null;
    }
    CatalogManager catalogs = spark.sessionState().catalogManager();
    String catalog = parts.size() > 1 && catalogs.isCatalogRegistered(parts.get(0))
        ? parts.remove(0) : catalogs.currentCatalog().name();
    if (!(catalogs.catalog(catalog) instanceof FloeCatalog)) {
      return null;
    }
    if (parts.size() == 1) {
      List<String> qualified = new ArrayList<>(Arrays.asList(catalogs.currentNamespace()));
      qualified.addAll(parts);
      parts = qualified;
    }
    if (partitioned) {
      throw new Unsupported("ANALYZE TABLE ... PARTITION (...) is not supported on Floe table " + catalog + "."
          + String.join(".", parts) + ": Floe keeps statistics for whole tables (drop the PARTITION clause)");
    }
    return new AnalyzeStatement(catalog, parts, columns);
  }

  /** The equivalent {@code CALL <catalog>.system.compute_table_stats(...)} statement. */
  String toCall() {
    String tableArg = table.stream().map(SqlTokens::quote).collect(Collectors.joining("."));
    StringBuilder call = new StringBuilder("CALL ").append(SqlTokens.quote(catalog))
        .append(".system.compute_table_stats(table => ").append(SqlTokens.literal(tableArg));
    if (columns != null) {
      call.append(", columns => ");
      if (columns.isEmpty()) {
        call.append("CAST(array() AS ARRAY<STRING>)");
      } else {
        call.append("array(").append(columns.stream().map(SqlTokens::literal)
            .collect(Collectors.joining(", "))).append(')');
      }
    }
    return call.append(')').toString();
  }
}
