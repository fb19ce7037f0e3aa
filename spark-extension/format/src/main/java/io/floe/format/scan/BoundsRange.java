package io.floe.format.scan;

import io.floe.format.manifest.ContentFile;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A column's min and max over planned files, folded from their lower/upper bounds (Floe Java values).
 * A file whose value and null counts are equal holds only nulls and needs no bounds; any other file
 * must have both bounds. Float and double columns also need NaN counts, since NaN sorts above every
 * bound in Spark's order; {@link Rules} says how strictly.
 */
public final class BoundsRange {
  private BoundsRange() {
  }

  /**
   * How a caller treats the files around the bounds.
   *
   * @param skipEmptyFiles files with a record count of 0 are passed over before any other check
   * @param nanCountOnNullOnlyFiles float/double files of only nulls need a NaN count too
   * @param nanCountMustBeZero a NaN count other than 0 refuses; when false, only a positive one does
   *     (an unknown NaN count always refuses)
   */
  public record Rules(boolean skipEmptyFiles, boolean nanCountOnNullOnlyFiles, boolean nanCountMustBeZero) {
    /** For exact answers ({@code min(col)} from metadata): empty files skipped, NaN count exactly 0. */
    public static final Rules EXACT = new Rules(true, false, true);
    /**
     * For statistics estimates: every file counts; an unknown or positive NaN count refuses, even on
     * files of only nulls.
     */
    public static final Rules STATISTICS = new Rules(false, true, false);
  }

  /**
   * Whether the column type's bounds are its exact values (never truncated): boolean, int, long,
   * float, double, date, timestamp, decimal.
   */
  public static boolean hasExactBounds(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE, TIMESTAMP, DECIMAL -> true;
      default -> false;
    };
  }

  /**
   * {min, max} of column {@code id} of {@code type} over the files' bounds ({null, null} when no file
   * has a non-null value), or null when unknown: a file with non-null values lacks a bound, or a NaN
   * count refuses under {@code rules}.
   */
  public static Object[] of(Type type, List<FileScanTask> tasks, int id, Rules rules) {
    boolean floating = type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
    Object min = null;
    Object max = null;
    for (FileScanTask task : tasks) {
      ContentFile file = task.file();
      if (rules.skipEmptyFiles() && file.recordCount() == 0) {
        continue;
      }
      Long values = get(file.valueCounts(), id);
      Long nulls = get(file.nullValueCounts(), id);
      boolean onlyNulls = values != null && nulls != null && values.longValue() == nulls.longValue();
      if (floating && (!onlyNulls || rules.nanCountOnNullOnlyFiles())) {
        Long nans = get(file.nanValueCounts(), id);
        if (nans == null || (rules.nanCountMustBeZero() ? nans != 0 : nans > 0)) {
          return null; // NaN sorts above every bound in Spark: the bounds are not the max; unknown is not zero
        }
      }
      if (onlyNulls) {
        continue; // only nulls: min and max ignore them, no bounds expected
      }
      ByteBuffer lower = file.lowerBounds() == null ? null : file.lowerBounds().get(id);
      ByteBuffer upper = file.upperBounds() == null ? null : file.upperBounds().get(id);
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
    return new Object[] {min, max};
  }

  private static Long get(Map<Integer, Long> metrics, int id) {
    return metrics == null ? null : metrics.get(id);
  }
}
