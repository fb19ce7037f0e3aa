package io.floe.spark.source;

import io.floe.format.scan.ScanMetrics;
import io.floe.format.scan.ScanPlan;
import io.floe.format.index.IndexPlanner;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A test hook: the pruning counts of the last scan planned for each table in this JVM (how many
 * manifests and data files were considered and how many were read), so that tests assert pruning
 * without timing anything. Recorded only in a JVM started with {@code -Dfloe.test-hooks=true}
 * (python-tests/conftest.py sets it); elsewhere nothing is kept. Users see the same counts as the
 * scan's metrics in Spark's UI ({@link FloeScanMetrics}).
 */
public final class ScanReports {
  static final boolean ENABLED = Boolean.getBoolean("floe.test-hooks");
  private static final ConcurrentHashMap<String, ScanMetrics> LAST = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<String, List<IndexPlanner.IndexUsage>> LAST_INDEXES =
      new ConcurrentHashMap<>();

  private static final ConcurrentHashMap<String, Long> READER_FACTORIES = new ConcurrentHashMap<>();

  private ScanReports() {}

  /** Counts a reader factory made for a scan of {@code table}. */
  static void readerFactoryCreated(String table) {
    if (ENABLED) {
      READER_FACTORIES.merge(table, 1L, Long::sum);
    }
  }

  /** How many reader factories scans of {@code table} (catalog.namespace.name) have made in this JVM. */
  public static long readerFactories(String table) {
    return READER_FACTORIES.getOrDefault(table, 0L);
  }

  static void record(String table, ScanPlan plan) {
    record(table, plan, List.of());
  }

  /** Records a plan and how each secondary index pruned it. */
  static void record(String table, ScanPlan plan, List<IndexPlanner.IndexUsage> indexUsages) {
    if (ENABLED) {
      LAST.put(table, plan.metrics());
      LAST_INDEXES.put(table, List.copyOf(indexUsages));
    }
  }

  /** The metrics of the last planned scan of {@code table} (catalog.namespace.name), or null. */
  public static ScanMetrics last(String table) {
    return LAST.get(table);
  }

  /** The same as a small JSON object, for Python callers. */
  public static String lastAsJson(String table) {
    ScanMetrics m = LAST.get(table);
    if (m == null) {
      return "null";
    }
    return "{\"total-manifests\":" + m.totalManifests() + ",\"scanned-manifests\":" + m.scannedManifests()
        + ",\"skipped-manifests\":" + m.skippedManifests() + ",\"total-data-files\":" + m.totalDataFiles()
        + ",\"result-data-files\":" + m.resultDataFiles() + ",\"skipped-data-files\":" + m.skippedDataFiles()
        + ",\"result-delete-files\":" + m.resultDeleteFiles() + ",\"index-pruned-files\":{"
        + LAST_INDEXES.getOrDefault(table, List.of()).stream()
            .map(u -> "\"" + u.indexName().replace("\\", "\\\\").replace("\"", "\\\"") + "\":" + u.prunedFiles())
            .collect(Collectors.joining(",")) + "}}";
  }
}
