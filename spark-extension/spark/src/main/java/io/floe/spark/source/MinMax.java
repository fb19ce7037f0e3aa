package io.floe.spark.source;

import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import io.floe.spark.util.SparkValues;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A column's min and max over planned files, from their lower/upper bounds, as Spark's internal
 * values (what Spark's own ANALYZE stores: int days for dates, long micros for timestamps, Decimal).
 * Only for the types Spark's ANALYZE gives min/max; never for strings or binary, whose bounds may be
 * truncated and so are not the exact min/max.
 */
final class MinMax {
  private MinMax() {
  }

  /** {min, max}, or null when unknown (a file with non-null values lacks a bound, a NaN, no values). */
  static Object[] of(Type type, List<FileScanTask> tasks, int id) {
    if (!hasRange(type)) {
      return null;
    }
    boolean floating = type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
    Object min = null;
    Object max = null;
    for (FileScanTask task : tasks) {
      Long values = get(task.file().valueCounts(), id);
      Long nulls = get(task.file().nullValueCounts(), id);
      Long nans = get(task.file().nanValueCounts(), id);
      if (floating && (nans == null || nans > 0)) {
        return null; // NaN sorts above every bound in Spark: the bounds are not its max
      }
      if (values != null && nulls != null && values.longValue() == nulls.longValue()) {
        continue; // only nulls: no bounds expected
      }
      ByteBuffer lower = task.file().lowerBounds() == null ? null : task.file().lowerBounds().get(id);
      ByteBuffer upper = task.file().upperBounds() == null ? null : task.file().upperBounds().get(id);
      if (lower == null || upper == null) {
        return null;
      }
      Object lo = Conversions.fromByteBuffer(type, lower);
      Object hi = Conversions.fromByteBuffer(type, upper);
      if (min == null || Conversions.compare(type, lo, min) < 0) {
        min = lo;
      }
      if (max == null || Conversions.compare(type, hi, max) > 0) {
        max = hi;
      }
    }
    return min == null ? null : new Object[] {SparkValues.toCatalyst(type, min), SparkValues.toCatalyst(type, max)};
  }

  private static boolean hasRange(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
      case DATE:
      case TIMESTAMP:
      case DECIMAL:
        return true;
      default:
        return false;
    }
  }

  private static Long get(Map<Integer, Long> metrics, int id) {
    return metrics == null ? null : metrics.get(id);
  }
}
