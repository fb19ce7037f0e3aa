package io.floe.format.metadata;

import java.util.List;
import java.util.function.ToLongFunction;

/** The consistency rules every {@link TableMetadata} satisfies, as reference readers enforce them. */
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
    require(v == 1 || m.uuid() != null, "table-uuid is required in format v" + v);
    require(m.location() != null, "location is required");
    require(m.schema() != null, "current-schema-id " + m.currentSchemaId() + " is not in schemas");
    require(m.spec() != null, "default-spec-id " + m.defaultSpecId() + " is not in partition-specs");
    require(m.sortOrder() != null,
        "default-sort-order-id " + m.defaultSortOrderId() + " is not in sort-orders");
    require(m.nextRowId() >= 0, "next-row-id is negative: " + m.nextRowId());
    checkSnapshots(m);
    checkRefs(m);
    checkLog("snapshot-log", m.snapshotLog(), SnapshotLogEntry::timestampMillis, m.lastUpdatedMillis());
    checkLog("metadata-log", m.previousFiles(), MetadataLogEntry::timestampMillis, m.lastUpdatedMillis());
  }

  private static void checkSnapshots(TableMetadata m) {
    long current = m.currentSnapshotId();
    require(current == TableMetadata.NO_SNAPSHOT || m.snapshot(current) != null,
        "current-snapshot-id " + current + " is not in snapshots");
    if (m.formatVersion() > 1) {
      for (Snapshot s : m.snapshots()) {
        require(s.sequenceNumber() <= m.lastSequenceNumber(), "snapshot " + s.snapshotId()
            + " has sequence number " + s.sequenceNumber() + ", greater than last-sequence-number "
            + m.lastSequenceNumber());
      }
    }
  }

  private static void checkRefs(TableMetadata m) {
    m.refs().forEach((name, ref) -> require(m.snapshot(ref.snapshotId()) != null,
        "ref " + name + " points to snapshot " + ref.snapshotId() + ", which is not in snapshots"));
    SnapshotRef main = m.ref(SnapshotRef.MAIN_BRANCH);
    long current = m.currentSnapshotId();
    if (current == TableMetadata.NO_SNAPSHOT) {
      require(main == null, "branch main points to " + (main == null ? "" : main.snapshotId())
          + " but there is no current snapshot");
    } else {
      require(main != null && main.snapshotId() == current,
          "branch main must point to current snapshot " + current + ", found " + main);
    }
    require(main == null || main.isBranch(), "main must be a branch, found a tag");
  }

  private static <T> void checkLog(String name, List<T> log, ToLongFunction<T> time, long lastUpdatedMillis) {
    Long previous = null;
    for (T entry : log) {
      long ts = time.applyAsLong(entry);
      require(previous == null || previous - ts <= ONE_MINUTE, name + " is not sorted by timestamp-ms at " + entry);
      previous = ts;
    }
    require(previous == null || previous - lastUpdatedMillis <= ONE_MINUTE, "last-updated-ms "
        + lastUpdatedMillis + " is before the last " + name + " entry at " + previous);
  }

  private static void require(boolean condition, String problem) {
    if (!condition) {
      throw new IllegalArgumentException("Invalid table metadata: " + problem);
    }
  }
}
