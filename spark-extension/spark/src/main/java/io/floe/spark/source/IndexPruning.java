package io.floe.spark.source;

import io.floe.format.expr.Expression;
import io.floe.format.index.IndexException;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListFiles;
import io.floe.format.index.IndexPlanner;
import io.floe.format.scan.ScanMetrics;
import io.floe.format.scan.ScanPlan;
import io.floe.format.table.TableView;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prunes a planned scan with the table's secondary indexes (docs/indexes.md), after partition and
 * bounds pruning: covered files the index rules out are dropped, uncovered files are kept. An index
 * list or segment that cannot be read costs only the pruning: the scan reads those files and a
 * warning names the file.
 */
final class IndexPruning {
  private static final Logger LOG = LoggerFactory.getLogger(IndexPruning.class);

  /** A scan plan after index pruning, and how each index took part. */
  record Pruned(ScanPlan plan, List<IndexPlanner.IndexUsage> usages) {
  }

  private IndexPruning() {}

  static Pruned prune(TableView table, Expression filter, ScanPlan planned) {
    if (IndexListFiles.currentLocation(table.metadata().properties()) == null || planned.tasks().isEmpty()
        || filter == null || filter.op() == Expression.Operation.TRUE) {
      return new Pruned(planned, List.of());
    }
    IndexPlanner.Result result;
    try {
      // index lists and segment files are never rewritten: reuse what earlier scans decoded
      IndexList indexes = IndexListFiles.readShared(table.ops().io(), table.name(), table.metadata().properties());
      result = IndexPlanner.of(table.readSchema(), indexes, IndexPlanner.SegmentOpener.shared(table.ops().io(),
          table.name())).prune(planned.tasks(), filter);
    } catch (IndexException e) {
      LOG.warn("{}", e.getMessage());
      return new Pruned(planned, List.of());
    } catch (RuntimeException e) {
      // a filter the read schema cannot bind (the scan evaluates it per row anyway): no index pruning
      LOG.debug("Cannot use the indexes of table {} for filter {}", table.name(), filter, e);
      return new Pruned(planned, List.of());
    }
    result.failures().forEach(e -> LOG.warn("{}", e.getMessage()));
    int pruned = result.prunedFiles();
    if (pruned == 0) {
      return new Pruned(planned, result.usages());
    }
    ScanMetrics m = planned.metrics();
    ScanMetrics metrics = new ScanMetrics(m.totalManifests(), m.scannedManifests(), m.skippedManifests(),
        m.totalDataFiles(), result.tasks().size(), m.skippedDataFiles() + pruned,
        result.tasks().stream().mapToInt(t -> t.deletes().size()).sum());
    return new Pruned(new ScanPlan(result.tasks(), metrics), result.usages());
  }
}
