package io.floe.format.commit;

import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The snapshots a table has, as error messages list them: at most {@value #MAX_LISTED} snapshot ids
 * with their commit times, newest first, then the branches and tags with the snapshot each points at.
 */
public final class SnapshotListing {
  public static final int MAX_LISTED = 20;

  private SnapshotListing() {}

  /** E.g. {@code the table's snapshots are 12 (2026-01-02T...Z), 11 (...); refs: main -> 12, tag v1 -> 11}. */
  public static String describe(TableMetadata metadata) {
    List<Snapshot> snapshots = new ArrayList<>(metadata.snapshots());
    if (snapshots.isEmpty()) {
      return "the table has no snapshots";
    }
    snapshots.sort(Comparator.comparingLong(Snapshot::timestampMillis).reversed());
    StringBuilder out = new StringBuilder("the table's snapshots are (newest first) ");
    for (int i = 0; i < Math.min(MAX_LISTED, snapshots.size()); i++) {
      Snapshot s = snapshots.get(i);
      out.append(i == 0 ? "" : ", ").append(s.snapshotId()).append(" (").append(Instant.ofEpochMilli(s.timestampMillis()))
          .append(')');
    }
    if (snapshots.size() > MAX_LISTED) {
      out.append(" and ").append(snapshots.size() - MAX_LISTED).append(" older");
    }
    if (!metadata.refs().isEmpty()) {
      out.append("; refs: ");
      String sep = "";
      for (Map.Entry<String, SnapshotRef> ref : metadata.refs().entrySet()) {
        out.append(sep).append(ref.getValue().isTag() ? "tag " : "branch ").append(ref.getKey()).append(" -> ")
            .append(ref.getValue().snapshotId());
        sep = ", ";
      }
    }
    return out.toString();
  }

  /** The oldest snapshot by commit time, or null for a table without snapshots. */
  public static Snapshot oldest(TableMetadata metadata) {
    return metadata.snapshots().stream().min(Comparator.comparingLong(Snapshot::timestampMillis)).orElse(null);
  }
}
