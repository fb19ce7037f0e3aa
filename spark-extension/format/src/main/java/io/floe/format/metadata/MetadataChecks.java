package io.floe.format.metadata;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * The consistency rules every {@link TableMetadata} satisfies, as reference readers enforce them.
 * Runs on every build and every parse, so the loops over snapshots and logs build an error message
 * only when a rule is broken.
 */
final class MetadataChecks {
  private MetadataChecks() {}

  /** Log entries may be out of order by up to a minute (clock skew between writers). */
  private static final long ONE_MINUTE = 60_000L;

  static void check(TableMetadata m) {
    int v = m.formatVersion();
    if (v < TableMetadata.MIN_FORMAT_VERSION || v > TableMetadata.MAX_FORMAT_VERSION) {
      throw new IllegalArgumentException("Unsupported format version: v" + v + " (supported: v"
          + TableMetadata.MIN_FORMAT_VERSION + " to v" + TableMetadata.MAX_FORMAT_VERSION + ")");
    }
    if (v > 1 && m.uuid() == null) {
      throw invalid("table-uuid is required in format v" + v);
    }
    if (m.location() == null) {
      throw invalid("location is required");
    }
    if (m.schema() == null) {
      throw invalid("current-schema-id " + m.currentSchemaId() + " is not in schemas");
    }
    if (m.spec() == null) {
      throw invalid("default-spec-id " + m.defaultSpecId() + " is not in partition-specs");
    }
    if (m.sortOrder() == null) {
      throw invalid("default-sort-order-id " + m.defaultSortOrderId() + " is not in sort-orders");
    }
    if (m.nextRowId() < 0) {
      throw invalid("next-row-id is negative: " + m.nextRowId());
    }
    checkSnapshots(m);
    checkAncestry(m);
    checkRefs(m);
    checkLog("snapshot-log", m.snapshotLog(), SnapshotLogEntry::timestampMillis, m.lastUpdatedMillis());
    checkLog("metadata-log", m.previousFiles(), MetadataLogEntry::timestampMillis, m.lastUpdatedMillis());
  }

  private static void checkSnapshots(TableMetadata m) {
    long current = m.currentSnapshotId();
    if (current != TableMetadata.NO_SNAPSHOT && m.snapshot(current) == null) {
      throw invalid("current-snapshot-id " + current + " is not in snapshots");
    }
    if (m.formatVersion() > 1) {
      for (Snapshot s : m.snapshots()) {
        if (s.sequenceNumber() > m.lastSequenceNumber()) {
          throw invalid("snapshot " + s.snapshotId() + " has sequence number " + s.sequenceNumber()
              + ", greater than last-sequence-number " + m.lastSequenceNumber());
        }
      }
    }
  }

  /**
   * No snapshot is its own ancestor: history walks (ancestors, conflict validation, expiry) follow
   * parent-snapshot-id until it leaves the table, and a cycle would never end. Each snapshot is
   * walked once.
   */
  private static void checkAncestry(TableMetadata m) {
    Set<Long> acyclic = new HashSet<>();
    for (Snapshot s : m.snapshots()) {
      Set<Long> chain = new LinkedHashSet<>();
      for (Snapshot at = s; at != null && !acyclic.contains(at.snapshotId());
          at = at.parentId() == null ? null : m.snapshot(at.parentId())) {
        if (!chain.add(at.snapshotId())) {
          throw invalid("snapshot " + at.snapshotId() + " is its own ancestor (parent-snapshot-id cycle through "
              + chain + ")");
        }
      }
      acyclic.addAll(chain);
    }
  }

  private static void checkRefs(TableMetadata m) {
    for (Map.Entry<String, SnapshotRef> e : m.refs().entrySet()) {
      if (m.snapshot(e.getValue().snapshotId()) == null) {
        throw invalid("ref " + e.getKey() + " points to snapshot " + e.getValue().snapshotId()
            + ", which is not in snapshots");
      }
    }
    SnapshotRef main = m.ref(SnapshotRef.MAIN_BRANCH);
    long current = m.currentSnapshotId();
    if (current == TableMetadata.NO_SNAPSHOT) {
      if (main != null) {
        throw invalid("branch main points to " + main.snapshotId() + " but there is no current snapshot");
      }
    } else if (main == null || main.snapshotId() != current) {
      throw invalid("branch main must point to current snapshot " + current + ", found " + main);
    }
    if (main != null && !main.isBranch()) {
      throw invalid("main must be a branch, found a tag");
    }
  }

  private static <T> void checkLog(String name, List<T> log, ToLongFunction<T> time, long lastUpdatedMillis) {
    boolean first = true;
    long previous = 0;
    for (T entry : log) {
      long ts = time.applyAsLong(entry);
      if (!first && previous - ts > ONE_MINUTE) {
        throw invalid(name + " is not sorted by timestamp-ms at " + entry);
      }
      first = false;
      previous = ts;
    }
    if (!first && previous - lastUpdatedMillis > ONE_MINUTE) {
      throw invalid("last-updated-ms " + lastUpdatedMillis + " is before the last " + name + " entry at " + previous);
    }
  }

  private static IllegalArgumentException invalid(String problem) {
    return new IllegalArgumentException("Invalid table metadata: " + problem);
  }
}
