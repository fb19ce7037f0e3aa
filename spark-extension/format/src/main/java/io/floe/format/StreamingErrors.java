package io.floe.format;

import static io.floe.format.FloeException.params;

/**
 * Builds the user-facing errors of streaming reads, streaming writes and the change feed, naming
 * the table, the snapshot and the option that would change the outcome (docs/streaming.md).
 */
public final class StreamingErrors {
  private StreamingErrors() {}

  /**
   * The stream reached a {@code delete} or {@code overwrite} snapshot it cannot turn into appended
   * rows; {@code skipOption} is the read option that skips such snapshots.
   */
  public static FloeException cannotProcessSnapshot(String table, long snapshotId, String operation,
      String skipOption) {
    return new FloeException(ErrorClass.FLOE_UNSUPPORTED, "Cannot stream from table " + table + ": snapshot "
        + snapshotId + " is a '" + operation + "' snapshot, which removes or replaces rows and cannot be read as"
        + " appended rows; set the read option " + skipOption + "=true to skip such snapshots (their changes are"
        + " then not streamed), or read the change feed (create_changelog_view) instead",
        params("table", table, "snapshot", Long.toString(snapshotId), "operation", operation, "option", skipOption),
        null);
  }

  /**
   * The snapshot a stream (or change feed range) must resume from is gone, e.g. removed by
   * {@code expire_snapshots} before the stream read it; continuing would silently skip its rows.
   */
  public static FloeException snapshotExpired(String table, long snapshotId, String action, String listing) {
    return new FloeException(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, "Cannot " + action + " table " + table
        + " from snapshot " + snapshotId + ": the snapshot no longer exists (expire_snapshots may have removed it"
        + " before it was read), so its rows cannot be read without loss; restart the query from a new checkpoint"
        + " (e.g. with stream-from-timestamp) after copying the missing data another way; " + listing,
        params("table", table, "snapshot", Long.toString(snapshotId)), null);
  }

  /**
   * The snapshot exists but is not an ancestor of the end of the range ({@code currentId}; null when
   * the table has no current snapshot): the table was rolled back or replaced past it, so the snapshots after it on the branch are not a commit-ordered history.
   */
  public static FloeException notAnAncestor(String table, long snapshotId, Long currentId, String action) {
    String current = currentId == null ? "the table's current state (it has no snapshot)" : "snapshot " + currentId;
    return new FloeException(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, "Cannot " + action + " table " + table
        + " from snapshot " + snapshotId + ": it is not an ancestor of " + current + " (the table was"
        + " rolled back or its history replaced); restart the query from a new checkpoint",
        params("table", table, "snapshot", Long.toString(snapshotId)), null);
  }

  /**
   * {@code stream-from-timestamp} is older than the table's retained history: the snapshots between
   * the time and {@code oldestId} (the oldest the branch still has) expired, so their rows are lost
   * to the stream.
   */
  public static FloeException historyExpiredAfter(String table, String timestamp, long oldestId, String oldestTime) {
    return new FloeException(ErrorClass.FLOE_TIME_TRAVEL_INVALID, "Cannot stream from table " + table
        + " from " + timestamp + ": the snapshots committed between that time and the oldest retained snapshot "
        + oldestId + " (" + oldestTime + ") have expired, so their rows cannot be streamed; set "
        + "stream-from-timestamp to " + oldestTime + " or later, or leave it unset to read the table in full",
        params("table", table, "timestamp", timestamp, "snapshot", Long.toString(oldestId)), null);
  }

  /** A stored streaming offset (from a checkpoint) that is not Floe's offset JSON. */
  public static FloeException invalidOffset(String json, String why) {
    return new FloeException(ErrorClass.FLOE_OPTION_INVALID, "Invalid Floe streaming offset " + json + ": " + why
        + "; the checkpoint was written by another source or is corrupt", params("offset", json), null);
  }

  /**
   * A streaming query writes to a table in {@code update} output mode, which would need each batch's
   * rows merged by key; the sink takes {@code append} and {@code complete} modes.
   */
  public static FloeException updateModeUnsupported(String table, String queryId) {
    return new FloeException(ErrorClass.FLOE_UNSUPPORTED, "Cannot write streaming query " + queryId + " to table "
        + table + " in update output mode: Floe's streaming sink takes append or complete mode; to upsert each"
        + " micro-batch's rows by key, use foreachBatch with MERGE INTO " + table + ", or write in complete mode",
        params("table", table, "query", queryId, "mode", "update"), null);
  }
}
