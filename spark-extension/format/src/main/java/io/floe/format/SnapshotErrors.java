package io.floe.format;

import static io.floe.format.FloeException.params;

/** Builds the user-facing errors of snapshots, refs and time travel, naming the table and the target. */
public final class SnapshotErrors {
  private SnapshotErrors() {}

  /** {@code VERSION AS OF version}: no snapshot id, branch or tag matches; {@code listing} shows what does. */
  public static FloeException versionNotFound(String table, String version, String listing) {
    return new FloeException(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, "Cannot time travel table " + table
        + " to version " + version + ": no snapshot, branch or tag has that id or name; " + listing,
        params("table", table, "version", version), null);
  }

  /** A snapshot id (e.g. a procedure's {@code snapshot_id}) that {@code table} does not have. */
  public static FloeException snapshotNotFound(String table, String snapshot, String message) {
    return new FloeException(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, message,
        params("table", table, "snapshot", snapshot), null);
  }

  /**
   * A {@code TIMESTAMP AS OF} (or {@code as-of-timestamp}) the table's history cannot answer:
   * {@code action} is "Cannot time travel table db.t to &lt;time&gt;", {@code why} the reason.
   */
  public static FloeException timeTravelInvalid(String action, String timestamp, String why) {
    return new FloeException(ErrorClass.FLOE_TIME_TRAVEL_INVALID, action + ": " + why,
        params("timestamp", timestamp), null);
  }
}
