package io.floe.format.metadata;

import io.floe.format.SnapshotErrors;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * Which snapshot was current on {@code main} at a past time, also when expiration has trimmed the
 * snapshot log: then the {@code metadata-log} names the metadata file that was current at that
 * time, and that file says which snapshot was current (the snapshot itself may be gone).
 */
public final class PastSnapshots {
  private PastSnapshots() {}

  /** What is known of the time: see the factory methods' docs. */
  public enum Kind {
    /** {@link At#snapshotId()} was current (it may have expired since). */
    SNAPSHOT,
    /** The table existed but had no snapshot yet. */
    NO_SNAPSHOT_YET,
    /** History before the time has expired and the file that would tell is unreadable or gone. */
    EXPIRED_UNKNOWN,
    /** The time is before anything the table's metadata records. */
    BEFORE_HISTORY
  }

  /** The answer; {@code snapshotId} only for {@link Kind#SNAPSHOT}. */
  public record At(Kind kind, Long snapshotId) {}

  /**
   * The snapshot current on main at {@code millis}: by the snapshot log, else by the newest older
   * metadata file (from the metadata log) written at or before that time, read with {@code reader}.
   */
  public static At currentAt(TableMetadata metadata, long millis, Function<String, TableMetadata> reader) {
    Long fromLog = fromSnapshotLog(metadata.snapshotLog(), millis);
    if (fromLog != null) {
      return new At(Kind.SNAPSHOT, fromLog);
    }
    // the first metadata file written after the time logged every snapshot up to it (unless that
    // commit itself expired them); the last one written before it says what was current then
    MetadataLogEntry after = null;
    MetadataLogEntry before = null;
    for (MetadataLogEntry entry : metadata.previousFiles()) {
      if (entry.timestampMillis() > millis && (after == null || entry.timestampMillis() < after.timestampMillis())) {
        after = entry;
      } else if (entry.timestampMillis() <= millis
          && (before == null || entry.timestampMillis() >= before.timestampMillis())) {
        before = entry;
      }
    }
    TableMetadata next = after == null ? null : read(reader, after.file());
    Long logged = next == null ? null : fromSnapshotLog(next.snapshotLog(), millis);
    if (logged != null) {
      return new At(Kind.SNAPSHOT, logged);
    }
    if (before != null) {
      TableMetadata then = read(reader, before.file());
      if (then == null) {
        return new At(Kind.EXPIRED_UNKNOWN, null);
      }
      Long current = fromSnapshotLog(then.snapshotLog(), millis);
      if (current == null && then.currentSnapshot() != null) {
        current = then.currentSnapshot().snapshotId();
      }
      return current == null ? new At(Kind.NO_SNAPSHOT_YET, null) : new At(Kind.SNAPSHOT, current);
    }
    if (next != null && next.snapshots().isEmpty()) {
      return new At(Kind.BEFORE_HISTORY, null); // a file written after the time had no snapshot yet
    }
    Snapshot oldest = metadata.snapshots().stream().min(Comparator.comparingLong(Snapshot::timestampMillis))
        .orElse(null);
    if (oldest != null && oldest.parentId() != null && metadata.snapshot(oldest.parentId()) == null) {
      return new At(Kind.EXPIRED_UNKNOWN, null); // the oldest snapshot has an expired parent
    }
    return new At(Kind.BEFORE_HISTORY, null);
  }

  /**
   * The live snapshot current on main at {@code millis}, or an error that starts with {@code action}
   * (e.g. "Cannot time travel table db.t to 2026-01-01T00:00:00Z") and says why there is none: the
   * snapshot current then has expired (naming it when known), the table had no snapshot yet, or
   * the time is before the table's first snapshot.
   */
  public static Snapshot snapshotAt(TableMetadata metadata, long millis, Function<String, TableMetadata> reader,
      String action) {
    At at = currentAt(metadata, millis, reader);
    Snapshot oldest = metadata.snapshots().stream().min(Comparator.comparingLong(Snapshot::timestampMillis))
        .orElse(null);
    String oldestText = oldest == null ? "" : oldest.snapshotId() + ", committed at "
        + Instant.ofEpochMilli(oldest.timestampMillis());
    String time = Instant.ofEpochMilli(millis).toString();
    switch (at.kind()) {
      case SNAPSHOT:
        Snapshot snap = metadata.snapshot(at.snapshotId());
        if (snap == null) {
          throw SnapshotErrors.timeTravelInvalid(action, time, "snapshot " + at.snapshotId() + ", current then, has "
              + "expired (expire_snapshots removed it); the oldest remaining snapshot is " + oldestText);
        }
        return snap;
      case NO_SNAPSHOT_YET:
        throw SnapshotErrors.timeTravelInvalid(action, time, "the table had no snapshot yet at that time; its first "
            + "remaining snapshot is " + oldestText);
      case EXPIRED_UNKNOWN:
        throw SnapshotErrors.timeTravelInvalid(action, time, "the snapshot current then, if any, has expired (the "
            + "table's history before its oldest remaining snapshot " + oldestText + " was expired)");
      default:
        throw SnapshotErrors.timeTravelInvalid(action, time, oldest == null ? "the table has no snapshots"
            : "it is before the table's first snapshot " + oldestText + (metadata.snapshotLog().isEmpty() ? ""
                : " (the history starts at " + Instant.ofEpochMilli(metadata.snapshotLog().get(0).timestampMillis())
                    + ")"));
    }
  }

  /** The metadata in {@code file}, or null when it is gone or unreadable (history is best effort). */
  private static TableMetadata read(Function<String, TableMetadata> reader, String file) {
    try {
      return reader.apply(file);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static Long fromSnapshotLog(List<SnapshotLogEntry> log, long millis) {
    Long found = null;
    for (SnapshotLogEntry e : log) {
      if (e.timestampMillis() <= millis) {
        found = e.snapshotId();
      }
    }
    return found;
  }
}
