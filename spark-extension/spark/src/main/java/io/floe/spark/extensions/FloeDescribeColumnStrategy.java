package io.floe.spark.extensions;

import io.floe.spark.FloeTable;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.ResolvedTable;
import org.apache.spark.sql.catalyst.catalog.CatalogColumnStat$;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.plans.logical.DescribeColumn;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.apache.spark.sql.execution.LocalTableScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * {@code DESCRIBE [TABLE] EXTENDED t col} on a Floe table, shown as Spark shows it for its own
 * (analyzed) tables: {@code min}, {@code max}, {@code num_nulls}, {@code distinct_count},
 * {@code avg_col_len}, {@code max_col_len} and {@code histogram}, with min/max formatted as Spark
 * formats catalog statistics (dates as {@code 2024-01-01}, not as days). The figures are the ones
 * the scan reports to the optimizer. Spark 4.1's own v2 command reads the same figures but prints
 * min/max as {@code Optional[19723]}; every other DESCRIBE falls through to Spark.
 */
public final class FloeDescribeColumnStrategy extends SparkStrategy {
  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    if (!(plan instanceof DescribeColumn describe) || !describe.isExtended()
        || !(describe.relation() instanceof ResolvedTable resolved)
        || !(resolved.table() instanceof FloeTable table)
        || !(describe.column() instanceof Attribute column)) {
      return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
    }
    List<InternalRow> rows = new ArrayList<>();
    add(rows, "col_name", column.name());
    add(rows, "data_type", column.dataType().catalogString());
    add(rows, "comment", column.metadata().contains("comment") ? column.metadata().getString("comment") : "NULL");
    ColumnStatistics stats = statistics(table, column.name());
    DataType type = column.dataType();
    add(rows, "min", stats == null ? null : external(stats.min(), column.name(), type));
    add(rows, "max", stats == null ? null : external(stats.max(), column.name(), type));
    add(rows, "num_nulls", stats == null ? null : text(stats.nullCount()));
    add(rows, "distinct_count", stats == null ? null : text(stats.distinctCount()));
    add(rows, "avg_col_len", stats == null ? null : text(stats.avgLen()));
    add(rows, "max_col_len", stats == null ? null : text(stats.maxLen()));
    add(rows, "histogram", null);
    SparkPlan exec = new LocalTableScanExec(describe.output(), CollectionConverters.asScala(rows).toList(),
        Option.empty());
    return CollectionConverters.asScala(List.of(exec)).toList();
  }

  private static ColumnStatistics statistics(FloeTable table, String column) {
    Scan scan = table.newScanBuilder(CaseInsensitiveStringMap.empty()).build();
    if (!(scan instanceof SupportsReportStatistics reporting)) {
      return null;
    }
    Map<NamedReference, ColumnStatistics> columns = reporting.estimateStatistics().columnStats();
    return columns.get(FieldReference.column(column));
  }

  /** As Spark's DescribeColumnCommand: catalog format, timestamps with the session time zone. */
  private static String external(Optional<Object> value, String column, DataType type) {
    if (value.isEmpty()) {
      return null;
    }
    CatalogColumnStat$ stat = CatalogColumnStat$.MODULE$;
    if (type instanceof TimestampType) {
      ZoneId zone = DateTimeUtils.getZoneId(SQLConf.get().sessionLocalTimeZone());
      return stat.getTimestampFormatter(false, "yyyy-MM-dd HH:mm:ss.SSSSSS Z", zone,
          stat.getTimestampFormatter$default$4()).format((Long) value.get());
    }
    return stat.toExternalString(value.get(), column, type);
  }

  private static String text(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : null;
  }

  private static void add(List<InternalRow> rows, String name, String value) {
    rows.add(new GenericInternalRow(new Object[] {
        UTF8String.fromString(name), UTF8String.fromString(value == null ? "NULL" : value)}));
  }

  /** Builds the strategy for {@code SparkSessionExtensions.injectPlannerStrategy}. */
  public static final class Builder extends AbstractFunction1<SparkSession, SparkStrategy> {
    @Override
    public SparkStrategy apply(SparkSession spark) {
      return new FloeDescribeColumnStrategy();
    }
  }
}
