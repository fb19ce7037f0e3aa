package io.floe.format.commit;

import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The snapshots a validating commit must check: those committed on the current branch after the
 * snapshot the operation read (its starting snapshot), oldest first. The history is whole when the
 * walk back from the current snapshot reaches the starting snapshot, or an ancestor whose parent is
 * the starting snapshot (an expiry may have removed the starting snapshot itself, and Iceberg's
 * {@code validationHistory} accepts that too). It cannot be determined when the walk ends first:
 * the table was rolled back or replaced, or snapshots after the starting one were expired.
 */
final class ValidationHistory {
  private ValidationHistory() {}

  /**
   * The snapshots after {@code startingSnapshotId} (null: the operation read an empty table, so
   * every snapshot of the branch), oldest first; null when the history cannot be determined.
   */
  static List<Snapshot> since(TableMetadata base, Long startingSnapshotId) {
    return since(base, base.currentSnapshot(), startingSnapshotId);
  }

  /** As {@link #since(TableMetadata, Long)}, walking back from {@code head}, a branch's head. */
  static List<Snapshot> since(TableMetadata base, Snapshot head, Long startingSnapshotId) {
    List<Snapshot> newer = new ArrayList<>();
    Snapshot current = head;
    while (current != null) {
      if (startingSnapshotId != null && current.snapshotId() == startingSnapshotId) {
        return oldestFirst(newer);
      }
      newer.add(current);
      Long parent = current.parentId();
      if (parent == null) {
        return startingSnapshotId == null ? oldestFirst(newer) : null;
      }
      if (parent.equals(startingSnapshotId)) {
        return oldestFirst(newer);
      }
      current = base.snapshot(parent);
    }
    // the current snapshot is gone (replaced) or an ancestor after the starting snapshot was expired
    return startingSnapshotId == null && head == null ? newer : null;
  }

  private static List<Snapshot> oldestFirst(List<Snapshot> newestFirst) {
    Collections.reverse(newestFirst);
    return newestFirst;
  }
}
