package io.floe.spark.source;

import io.floe.format.partition.PartitionField;
import io.floe.format.scan.FileScanTask;
import io.floe.format.sql.SqlTokens;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkValues;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.read.partitioning.KeyGroupedPartitioning;

/**
 * The partitioning a read reports to Spark when Spark will run it as ONE task whose rows all share
 * the values of some identity-partitioned columns: {@code KeyGroupedPartitioning} on those columns
 * with one partition. One partition satisfies every distribution Spark's operators ask of a single
 * task, so an aggregate without {@code GROUP BY} (or one grouped by those columns) needs no shuffle:
 * one stage and one job instead of two. A read of several tasks reports nothing, so that its
 * parallelism is never traded for grouping (Iceberg's {@code preserve-data-grouping} makes that
 * trade for every read; Floe only makes it where it costs nothing).
 *
 * <p>The key must hold for every row Spark reads, so a column counts only when, in every planned
 * file, the partition value is not null and the file's lower and upper bounds of the column both
 * equal it (a file without bounds, or with truncated ones, disqualifies the column). Spark only
 * uses keys that are in the scan's output, so the key columns join the scan's read schema.
 *
 * @param columns the key columns (top-level table columns), in partition-spec order
 * @param key the values of those columns, as Spark's internal values
 */
record SingleTaskPartitioning(List<Types.NestedField> columns, InternalRow key) {

  /**
   * The partitioning of a read of {@code tasks} that packs into {@code inputPartitions} partitions,
   * or null when it is not one task or no identity column has one value in all its files.
   */
  static SingleTaskPartitioning of(Schema schema, List<FileScanTask> tasks, int inputPartitions) {
    if (inputPartitions != 1 || tasks.isEmpty()) {
      return null;
    }
    int specId = tasks.get(0).spec().specId();
    if (tasks.stream().anyMatch(t -> t.spec().specId() != specId)) {
      return null;
    }
    List<PartitionField> fields = tasks.get(0).spec().fields();
    List<Types.NestedField> columns = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    for (int pos = 0; pos < fields.size(); pos++) {
      PartitionField field = fields.get(pos);
      Types.NestedField column = schema.asStruct().field(field.sourceId());
      if (!field.transform().isIdentity() || column == null || !column.type().isPrimitiveType()) {
        continue; // a nested or non-identity source: no top-level column holds the key
      }
      Object value = sharedValue(tasks, pos, column);
      if (value != null) {
        columns.add(column);
        values.add(SparkValues.toCatalyst(column.type(), value));
      }
    }
    return columns.isEmpty() ? null : new SingleTaskPartitioning(List.copyOf(columns), new GenericInternalRow(values.toArray()));
  }

  /** The value at {@code pos} of every task's partition tuple when every file's rows hold exactly it, else null. */
  private static Object sharedValue(List<FileScanTask> tasks, int pos, Types.NestedField column) {
    Object shared = tasks.get(0).file().partition().get(pos);
    if (shared == null) {
      return null;
    }
    for (FileScanTask task : tasks) {
      Object value = task.file().partition().get(pos);
      if (!same(column, value, shared)
          || !holdsOnly(task.file().lowerBounds().get(column.fieldId()), column, shared)
          || !holdsOnly(task.file().upperBounds().get(column.fieldId()), column, shared)) {
        return null;
      }
    }
    return shared;
  }

  private static boolean holdsOnly(ByteBuffer bound, Types.NestedField column, Object value) {
    if (bound == null) {
      return false;
    }
    try {
      return same(column, Conversions.fromByteBuffer(column.type(), bound), value);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Equal as Spark sees them (a string partition value and a decoded bound may differ in Java class). */
  private static boolean same(Types.NestedField column, Object a, Object b) {
    return a != null && Objects.equals(SparkValues.toCatalyst(column.type(), a), SparkValues.toCatalyst(column.type(), b));
  }

  /** The partitioning Spark sees: the key columns by name, one partition. */
  KeyGroupedPartitioning partitioning() {
    Expression[] keys = columns.stream().map(c -> (Expression) Expressions.column(SqlTokens.quote(c.name())))
        .toArray(Expression[]::new);
    return new KeyGroupedPartitioning(keys, 1);
  }
}
