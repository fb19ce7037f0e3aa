package io.floe.format.commit;

import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Moves a table's {@code main} branch between existing snapshots: roll back to an ancestor (by id
 * or by time), set any snapshot (or a ref's head) as current. Each method returns the next metadata
 * for a base, to be committed by the caller; every change on main also appends a snapshot-log entry
 * (see TableMetadataBuilder#setRef). User errors are IllegalArgumentExceptions naming the table and
 * the snapshot. Cherry-picking is {@link Cherrypick}.
 */
public final class ManageSnapshots {
  private ManageSnapshots() {}

  /**
   * The snapshots from {@code snapshotId} back through their parents, newest first; the walk stops
   * at a parent that is no longer in the metadata (expired). Empty when the id is unknown.
   */
  public static List<Snapshot> ancestors(TableMetadata metadata, Long snapshotId) {
    List<Snapshot> out = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    Snapshot s = snapshotId == null ? null : metadata.snapshot(snapshotId);
    while (s != null && seen.add(s.snapshotId())) {
      out.add(s);
      s = s.parentId() == null ? null : metadata.snapshot(s.parentId());
    }
    return out;
  }

  /** Whether {@code snapshotId} is the current snapshot or one of its ancestors. */
  public static boolean isCurrentAncestor(TableMetadata metadata, long snapshotId) {
    Snapshot current = metadata.currentSnapshot();
    return current != null
        && ancestors(metadata, current.snapshotId()).stream().anyMatch(s -> s.snapshotId() == snapshotId);
  }

  /** Makes an ancestor of the current snapshot current again (unchanged when it already is). */
  public static TableMetadata rollbackTo(TableMetadata base, long snapshotId, String table) {
    Snapshot target = requireSnapshot(base, snapshotId, table, "roll back");
    if (!isCurrentAncestor(base, snapshotId)) {
      throw new IllegalArgumentException("Cannot roll back table " + table + " to snapshot " + snapshotId
          + ": it is not an ancestor of the current snapshot " + currentId(base)
          + " (use set_current_snapshot to make any snapshot current)");
    }
    return setCurrent(base, target);
  }

  /** Makes current the newest ancestor of the current snapshot committed strictly before {@code timestampMillis}. */
  public static TableMetadata rollbackToTime(TableMetadata base, long timestampMillis, String table) {
    Snapshot found = null;
    Snapshot current = base.currentSnapshot();
    for (Snapshot s : ancestors(base, current == null ? null : current.snapshotId())) {
      if (s.timestampMillis() < timestampMillis) {
        found = s;
        break;
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("Cannot roll back table " + table + " to "
          + java.time.Instant.ofEpochMilli(timestampMillis)
          + ": no ancestor of the current snapshot is older; " + SnapshotListing.describe(base));
    }
    return setCurrent(base, found);
  }

  /** Makes any snapshot of the table current, ancestor or not (e.g. undoing a rollback). */
  public static TableMetadata setCurrentSnapshot(TableMetadata base, long snapshotId, String table) {
    return setCurrent(base, requireSnapshot(base, snapshotId, table, "set the current snapshot of"));
  }

  /** Makes the head of branch or tag {@code ref} current. */
  public static TableMetadata setCurrentToRef(TableMetadata base, String ref, String table) {
    SnapshotRef found = base.ref(ref);
    if (found == null) {
      throw new IllegalArgumentException("Cannot set the current snapshot of table " + table + " to ref '" + ref
          + "': no branch or tag has that name; refs are " + base.refs().keySet());
    }
    return setCurrent(base, requireSnapshot(base, found.snapshotId(), table, "set the current snapshot of"));
  }

  private static TableMetadata setCurrent(TableMetadata base, Snapshot target) {
    if (base.currentSnapshot() != null && base.currentSnapshot().snapshotId() == target.snapshotId()) {
      return base;
    }
    return TableMetadata.buildFrom(base).setBranchSnapshot(target.snapshotId(), SnapshotRef.MAIN_BRANCH).build();
  }

  static Snapshot requireSnapshot(TableMetadata base, long snapshotId, String table, String action) {
    Snapshot s = base.snapshot(snapshotId);
    if (s == null) {
      throw new IllegalArgumentException("Cannot " + action + " table " + table + ": snapshot " + snapshotId
          + " does not exist; " + SnapshotListing.describe(base));
    }
    return s;
  }

  static String currentId(TableMetadata base) {
    return base.currentSnapshot() == null ? "(none)" : Long.toString(base.currentSnapshot().snapshotId());
  }
}
