package io.floe.spark.source;

import io.floe.format.expr.Expression;
import io.floe.format.scan.MetadataAggregates;
import io.floe.format.scan.TableScan;
import io.floe.format.table.TableView;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.util.SparkValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Answers an aggregation Spark pushes into a Floe scan ({@code count(*)}, {@code count(col)},
 * {@code min(col)}, {@code max(col)}, no GROUP BY) from manifest metrics, as one row of a
 * {@link LocalRowsScan}: no data file is opened and, with Floe's extensions, no Spark job runs
 * ({@code FloeMetadataAnswerStrategy}). Refused, so that Spark scans as before, when the
 * session conf {@value #SESSION_CONF} is false, for a row-level operation's scan, when a pushed filter does not select whole files, and whenever the metrics do not give the
 * exact answer ({@link MetadataAggregates}).
 */
final class AggregatePushDown {
  /** The session switch, as Iceberg's {@code spark.sql.iceberg.aggregate-push-down.enabled}. */
  static final String SESSION_CONF = "spark.sql.floe.aggregate-push-down.enabled";

  private AggregatePushDown() {
  }

  /** Whether the session allows answering aggregates from metadata. */
  static boolean enabled() {
    return Boolean.parseBoolean(SQLConf.get().getConfString(SESSION_CONF, "true").trim());
  }

  /**
   * The scan answering {@code aggregation} over the files {@code filter} selects (exactly: the
   * caller passes only filters applied to whole files), or null when metadata cannot answer it.
   */
  static LocalRowsScan answer(TableView table, Expression filter, Aggregation aggregation) {
    if (aggregation.groupByExpressions().length > 0) {
      return null;
    }
    List<MetadataAggregates.Aggregate> aggregates = new ArrayList<>();
    for (AggregateFunc func : aggregation.aggregateExpressions()) {
      MetadataAggregates.Aggregate aggregate = convert(table, func);
      if (aggregate == null) {
        return null;
      }
      aggregates.add(aggregate);
    }
    if (MetadataAggregates.refusal(aggregates) != null) {
      return null; // no file can change that: plan no manifest
    }
    TableScan scan = TableScan.of(table.ops().io(), table.metadata()).useSnapshot(table.snapshot())
        .schema(table.readSchema()).filter(filter);
    MetadataAggregates.Result result = MetadataAggregates.evaluate(scan.planFiles().tasks(), aggregates);
    if (!result.answered()) {
      return null;
    }
    StructField[] fields = new StructField[aggregates.size()];
    Object[] row = new Object[aggregates.size()];
    for (int i = 0; i < aggregates.size(); i++) {
      MetadataAggregates.Aggregate aggregate = aggregates.get(i);
      boolean count = aggregate.column() == null || aggregate.op() == MetadataAggregates.Op.COUNT;
      fields[i] = DataTypes.createStructField(aggregate.describe(),
          count ? DataTypes.LongType : SparkSchemas.convert(aggregate.column().type()), !count);
      row[i] = count ? result.values().get(i) : SparkValues.toCatalyst(aggregate.column().type(), result.values().get(i));
    }
    String snapshot = table.snapshot() == null ? "" : " snapshot=" + table.snapshot().snapshotId();
    return new LocalRowsScan("FloeMetadataAggregate " + table.name() + snapshot, new StructType(fields),
        new GenericInternalRow(row));
  }

  /** The aggregate of a top-level table column, or null when metadata cannot answer this function. */
  private static MetadataAggregates.Aggregate convert(TableView table, AggregateFunc func) {
    if (func instanceof CountStar) {
      return new MetadataAggregates.Aggregate(MetadataAggregates.Op.COUNT_STAR, null);
    }
    org.apache.spark.sql.connector.expressions.Expression arg;
    MetadataAggregates.Op op;
    if (func instanceof Count count && !count.isDistinct()) {
      arg = count.column();
      op = MetadataAggregates.Op.COUNT;
    } else if (func instanceof Min min) {
      arg = min.column();
      op = MetadataAggregates.Op.MIN;
    } else if (func instanceof Max max) {
      arg = max.column();
      op = MetadataAggregates.Op.MAX;
    } else {
      return null;
    }
    if (!(arg instanceof NamedReference ref) || ref.fieldNames().length != 1) {
      return null;
    }
    Types.NestedField column = topLevel(table, ref.fieldNames()[0]);
    return column == null || !column.type().isPrimitiveType() ? null : new MetadataAggregates.Aggregate(op, column);
  }

  private static Types.NestedField topLevel(TableView table, String name) {
    for (Types.NestedField f : table.readSchema().columns()) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    String lower = name.toLowerCase(Locale.ROOT);
    Types.NestedField match = null;
    for (Types.NestedField f : table.readSchema().columns()) {
      if (f.name().toLowerCase(Locale.ROOT).equals(lower)) {
        if (match != null) {
          return null; // ambiguous: leave it to Spark
        }
        match = f;
      }
    }
    return match;
  }
}
