package io.floe.spark.source;

import io.floe.format.scan.BoundsRange;
import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Type;
import io.floe.spark.util.SparkValues;
import java.util.List;

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
    if (!BoundsRange.hasExactBounds(type)) {
      return null;
    }
    Object[] range = BoundsRange.of(type, tasks, id, BoundsRange.Rules.STATISTICS);
    if (range == null || range[0] == null) {
      return null;
    }
    return new Object[] {SparkValues.toCatalyst(type, range[0]), SparkValues.toCatalyst(type, range[1])};
  }
}
