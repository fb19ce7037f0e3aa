package io.floe.format.index;

import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.commit.TableOperations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Publishes a change of a table's index list: writes the changed list to a new file and commits
 * table metadata whose {@code floe.indexes} property names it, with no new snapshot. A commit that
 * loses a race (another writer committed first) is retried with backoff per the table's
 * {@code commit.retry.*} properties, on the new metadata: the change is
 * re-applied to the index list that metadata names, so a concurrent data commit never fails because
 * of an index change, and two changes of the same index conflict as the change decides (for
 * example "index exists"). The list file of a lost attempt is deleted; after an unknown commit
 * outcome nothing is deleted.
 * <pre>
 *   IndexListCommit.commit(ops, table, (current, base) -> IndexList.buildFrom(current).add(index).build());
 * </pre>
 */
public final class IndexListCommit {
  private IndexListCommit() {}

  /** A change of the index list, applied to the current list at every attempt. */
  @FunctionalInterface
  public interface Change {
    /** The new list, from the list {@code base} names; throws to refuse the change (nothing is committed). */
    IndexList apply(IndexList current, TableMetadata base);
  }

  /**
   * Applies {@code change} and commits it, retrying lost races with backoff per the table's
   * {@code commit.retry.*} properties, as a data commit does; returns the committed list.
   * {@code table} names the table in errors.
   */
  public static IndexList commit(TableOperations ops, String table, Change change) {
    Objects.requireNonNull(change, "Index list change is null");
    TableMetadata base = ops.refresh();
    SnapshotProducer.RetryPolicy retry = SnapshotProducer.RetryPolicy.from(base.properties());
    long started = System.currentTimeMillis();
    for (int failures = 0; ; ) {
      IndexList current = IndexListFiles.read(ops.io(), table, base.properties());
      IndexList next = change.apply(current, base);
      if (next.equals(current)) {
        return current;
      }
      String location = IndexListFiles.write(ops.io(), ops.metadataRoot() + "/metadata", next);
      TableMetadata updated = TableMetadata.buildFrom(base)
          .setProperties(Map.of(TableProperties.INDEXES, location)).build();
      try {
        ops.commit(base, updated);
        return next;
      } catch (CommitFailedException e) {
        deleteQuietly(ops, location);
        failures += 1;
        if (failures > retry.numRetries() || System.currentTimeMillis() - started > retry.totalTimeoutMs()) {
          throw new CommitFailedException("Cannot change the indexes of table " + table + ": other commits won "
              + failures + " attempts in a row (raise " + TableProperties.COMMIT_NUM_RETRIES + " to retry more): "
              + e.getMessage(), e);
        }
        retry.sleep(failures);
        base = ops.refresh();
      }
    }
  }

  private static void deleteQuietly(TableOperations ops, String location) {
    try {
      ops.io().deleteFile(location);
    } catch (IOException | RuntimeException e) {
      // an unreferenced file in the hidden index folder: harmless, removed by expire_snapshots
    }
  }
}
