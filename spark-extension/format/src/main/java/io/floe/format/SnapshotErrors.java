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

  /**
   * A branch or tag ({@code kind}) named by a statement or procedure that {@code table} does not
   * have; {@code listing} shows the refs it has.
   */
  public static FloeException refNotFound(String action, String table, String kind, String ref, String listing) {
    return new FloeException(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, action + ": table " + table + " has no " + kind
        + " named '" + ref + "'; " + listing, params("table", table, "ref", ref), null);
  }

  /** A write to tag {@code tag}: tags are fixed, only branches take commits. */
  public static FloeException writeToTag(String table, String tag) {
    return new FloeException(ErrorClass.FLOE_UNSUPPORTED, "Cannot write to tag '" + tag + "' of table " + table
        + ": a tag names one fixed snapshot; write to a branch (create one with ALTER TABLE " + table
        + " CREATE BRANCH <name> AS OF VERSION <snapshot id>) instead", params("table", table, "ref", tag), null);
  }
}
