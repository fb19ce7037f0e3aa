package io.floe.testing;

/**
 * The named crash points of a commit (R3 in docs/reliability.md). Each is recognised
 * by {@link CrashPointFileIO} from the file operation and the path it touches; {@link #followUp()}
 * points crash a step run after the operation was acknowledged (index build, statistics, expiry,
 * orphan removal).
 */
public enum CrashPoint {
  AFTER_DATA_FILE,
  AFTER_DV_PUFFIN,
  AFTER_INDEX_WRITE,
  AFTER_MANIFEST,
  AFTER_MANIFEST_LIST,
  AFTER_METADATA_TEMP,
  MID_PUBLISH,
  AFTER_PUBLISH_BEFORE_ACK,
  AFTER_HINT_TEMP,
  AFTER_OLD_HINT_DELETE,
  AFTER_HINT_REPLACE,
  DURING_OLD_METADATA_CLEANUP,
  DURING_STATS_WRITE,
  DURING_EXPIRE_DELETES,
  DURING_ORPHAN_DELETES,
  DURING_ABORT_CLEANUP;

  /** True when the crash comes after the operation's new version was published (landed, not acknowledged). */
  public boolean afterPublish() {
    return this == AFTER_PUBLISH_BEFORE_ACK || this == AFTER_HINT_TEMP || this == AFTER_OLD_HINT_DELETE
        || this == AFTER_HINT_REPLACE || this == DURING_OLD_METADATA_CLEANUP;
  }

  /** True when the crash hits a step run after the operation was acknowledged. */
  public boolean followUp() {
    return this == AFTER_INDEX_WRITE || this == DURING_STATS_WRITE || this == DURING_EXPIRE_DELETES
        || this == DURING_ORPHAN_DELETES;
  }

  /** Whether the point is on the path of {@code op} (only a row delta writes a deletion vector). */
  public boolean appliesTo(CrashOp op) {
    return this != AFTER_DV_PUFFIN || op == CrashOp.ROW_DELTA;
  }
}
