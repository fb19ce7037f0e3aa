package io.floe.format.metadata;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Maintenance of the {@code snapshot-log} and {@code metadata-log} lists when metadata changes. */
final class MetadataLogs {
  private MetadataLogs() {}

  /** Drops the snapshot-log entries up to and including the last one naming a snapshot that is gone. */
  static List<SnapshotLogEntry> withoutExpired(List<SnapshotLogEntry> log, List<Snapshot> snapshots) {
    Set<Long> live = new HashSet<>();
    snapshots.forEach(s -> live.add(s.snapshotId()));
    int lastMissing = -1;
    for (int i = 0; i < log.size(); i++) {
      if (!live.contains(log.get(i).snapshotId())) {
        lastMissing = i;
      }
    }
    return new ArrayList<>(log.subList(lastMissing + 1, log.size()));
  }

  /** Appends an entry and keeps the newest {@code max} entries (at least one). */
  static List<MetadataLogEntry> append(List<MetadataLogEntry> log, MetadataLogEntry entry, int max) {
    List<MetadataLogEntry> out = new ArrayList<>(log);
    out.add(entry);
    int keep = Math.max(1, max);
    return out.size() <= keep ? out : new ArrayList<>(out.subList(out.size() - keep, out.size()));
  }
}
