package io.floe.format.scan;

import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code count(*)}, {@code count(col)}, {@code min(col)} and {@code max(col)} of planned files,
 * answered from manifest metrics alone, or refused with the reason when the metrics do not give the
 * exact answer a scan would. The rules:
 * <ul>
 *   <li>{@code count(*)}: the sum of record counts; a file with a deletion vector counts its record
 *       count minus the vector's cardinality (a DV's {@code record_count}); any other delete file
 *       (position or equality) makes the count unknown.</li>
 *   <li>{@code count(col)}, {@code min}, {@code max}: only when no planned file has a delete file
 *       (deleted rows may hold the minimum). A missing value/null count or bound is unknown, never
 *       zero; a file whose counts say it holds only nulls needs no bounds.</li>
 *   <li>{@code min}/{@code max} only for types whose bounds are exact values: boolean, int, long,
 *       float, double, date, timestamp, decimal. Never for strings, even when the column's metrics
 *       mode is {@code full} now: the mode is a table property read at write time, and files
 *       written under an earlier {@code truncate(N)} (Iceberg's default) keep cut bounds (as
 *       Iceberg decided, apache/iceberg#16320). Floats and doubles need a known NaN count of 0 in
 *       every file, and a result other than a signed zero (a scan may return either sign).</li>
 *   <li>Only top-level columns: counts of fields nested in structs count parent nulls differently.</li>
 * </ul>
 */
public final class MetadataAggregates {
  private MetadataAggregates() {
  }

  /** The aggregate functions metadata can answer. */
  public enum Op { COUNT_STAR, COUNT, MIN, MAX }

  /** One aggregate: {@code column} is null for {@code count(*)}. */
  public record Aggregate(Op op, Types.NestedField column) {
    public Aggregate {
      Objects.requireNonNull(op, "op");
      if ((op == Op.COUNT_STAR) != (column == null)) {
        throw new IllegalArgumentException("Invalid aggregate " + op + " of column " + column);
      }
    }

    /** {@code count(*)}, {@code min(d)}, ...: the name of the aggregate's output column in plans. */
    public String describe() {
      return op == Op.COUNT_STAR ? "count(*)" : op.name().toLowerCase(java.util.Locale.ROOT) + "(" + column.name() + ")";
    }
  }

  /** The values (Floe Java values; counts as Long), or null with the reason metadata cannot answer. */
  public record Result(List<Object> values, String refusal) {
    static Result refused(String reason) {
      return new Result(null, reason);
    }

    public boolean answered() {
      return values != null;
    }
  }

  /**
   * Why metadata can never answer one of {@code aggregates}, whatever the files (a min/max of a
   * type whose bounds are not exact values), or null: checked before planning any file.
   */
  public static String refusal(List<Aggregate> aggregates) {
    for (Aggregate aggregate : aggregates) {
      if ((aggregate.op() == Op.MIN || aggregate.op() == Op.MAX)
          && !BoundsRange.hasExactBounds(aggregate.column().type())) {
        Type type = aggregate.column().type();
        return aggregate.describe() + (type.typeId() == Type.TypeID.STRING
            ? ": string bounds may be truncated (by the metrics mode a file was written with)"
            : ": bounds of type " + type + " are not pushed");
      }
    }
    return null;
  }

  /** Answers {@code aggregates} over {@code tasks}. */
  public static Result evaluate(List<FileScanTask> tasks, List<Aggregate> aggregates) {
    String never = refusal(aggregates);
    if (never != null) {
      return Result.refused(never);
    }
    boolean anyDeletes = tasks.stream().anyMatch(t -> !t.deletes().isEmpty());
    List<Object> values = new ArrayList<>(aggregates.size());
    for (Aggregate aggregate : aggregates) {
      if (aggregate.op() != Op.COUNT_STAR && anyDeletes) {
        return Result.refused(aggregate.describe() + ": some files have deletes");
      }
      Object value;
      String refusal;
      switch (aggregate.op()) {
        case COUNT_STAR -> {
          Long count = countStar(tasks);
          value = count;
          refusal = count == null ? "count(*): a file has position or equality deletes" : null;
        }
        case COUNT -> {
          Long count = count(tasks, aggregate.column().fieldId());
          value = count;
          refusal = count == null ? aggregate.describe() + ": a file lacks value or null counts" : null;
        }
        default -> {
          Types.NestedField column = aggregate.column();
          Object[] range = BoundsRange.of(column.type(), tasks, column.fieldId(), BoundsRange.Rules.EXACT);
          refusal = range == null
              ? aggregate.describe() + ": a file lacks bounds, or has NaN or unknown NaN counts" : null;
          value = range == null ? null : range[aggregate.op() == Op.MIN ? 0 : 1];
          if (refusal == null && isSignedZero(value)) {
            refusal = aggregate.describe() + ": the result is a signed zero";
          }
        }
      }
      if (refusal != null) {
        return Result.refused(refusal);
      }
      values.add(value);
    }
    return new Result(values, null);
  }

  private static Long countStar(List<FileScanTask> tasks) {
    long count = 0;
    for (FileScanTask task : tasks) {
      count += task.file().recordCount();
      for (DeleteFile delete : task.deletes()) {
        if (!isDeletionVector(delete)) {
          return null; // position files may repeat positions; equality deletes match unknown rows
        }
        count -= delete.recordCount(); // a DV's record count is its cardinality
      }
    }
    return count;
  }

  private static boolean isDeletionVector(DeleteFile delete) {
    return delete.content() == FileContent.POSITION_DELETES && delete.format() == FileFormat.PUFFIN;
  }

  private static Long count(List<FileScanTask> tasks, int id) {
    long count = 0;
    for (FileScanTask task : tasks) {
      if (task.file().recordCount() == 0) {
        continue;
      }
      Long values = get(task.file().valueCounts(), id);
      Long nulls = get(task.file().nullValueCounts(), id);
      if (values == null || nulls == null) {
        return null;
      }
      count += values - nulls;
    }
    return count;
  }

  private static boolean isSignedZero(Object value) {
    return (value instanceof Double d && d == 0.0d) || (value instanceof Float f && f == 0.0f);
  }

  private static Long get(Map<Integer, Long> metrics, int id) {
    return metrics == null ? null : metrics.get(id);
  }
}
