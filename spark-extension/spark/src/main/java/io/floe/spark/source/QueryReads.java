package io.floe.spark.source;

import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkContext;

/**
 * Which snapshots of which tables each running SQL execution has read, so that a write in the
 * same execution can be validated against what its query saw. Spark runs a MERGE that only
 * inserts ({@code WHEN NOT MATCHED THEN INSERT}) as a plain append of an anti-join with the
 * target; without this, two such MERGEs racing would both insert the same new keys.
 * Kept per Spark execution id, on the driver; the oldest executions are forgotten first.
 */
public final class QueryReads {
  private static final String EXECUTION_ID = "spark.sql.execution.id";
  private static final int MAX_EXECUTIONS = 256;

  /** A scan of {@code table} at {@code snapshotId} (null: the table was empty) with its filter. */
  public record Read(String table, Long snapshotId, Expression filter) {
  }

  private static final Map<String, List<Read>> READS = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, List<Read>> eldest) {
      return size() > MAX_EXECUTIONS;
    }
  };

  private QueryReads() {
  }

  /** The key reads of {@code table} on {@code branch} (null: main) are recorded under. */
  public static String key(String table, String branch) {
    return branch == null ? table : table + "@branch:" + branch;
  }

  static void record(SparkContext context, String table, Long snapshotId, Expression filter) {
    String execution = context.getLocalProperty(EXECUTION_ID);
    if (execution == null) {
      return;
    }
    synchronized (READS) {
      READS.computeIfAbsent(execution, k -> new ArrayList<>()).add(new Read(table, snapshotId, filter));
    }
  }

  /** The reads of {@code table} by the current execution, oldest snapshot first; empty when none. */
  public static List<Read> readsOf(SparkContext context, String table) {
    String execution = context.getLocalProperty(EXECUTION_ID);
    if (execution == null) {
      return List.of();
    }
    List<Read> out = new ArrayList<>();
    synchronized (READS) {
      for (Read r : READS.getOrDefault(execution, List.of())) {
        if (r.table().equals(table)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** The union of the reads' filters: rows any of them may have looked at. */
  public static Expression unionFilter(List<Read> reads) {
    Expression union = Expressions.alwaysFalse();
    for (Read r : reads) {
      union = Expressions.or(union, r.filter() == null ? Expressions.alwaysTrue() : r.filter());
    }
    return union;
  }
}
