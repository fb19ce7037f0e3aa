package io.floe.format.commit;

import io.floe.format.commit.ConflictMatrixCase.Op;
import io.floe.format.commit.ConflictMatrixCase.Outcome;
import io.floe.format.commit.ConflictMatrixCase.Placement;

/**
 * The expected outcome of each cell, written from Iceberg's validation rules (docs/reliability.md,
 * R2) rather than from Floe's code:
 * <ol>
 *   <li>Operations that do not validate (append; static and dynamic overwrite without an
 *       {@code isolation-level} write option; REPLACE TABLE, whose transaction is re-applied to the
 *       refreshed table; schema change, expiry and index build, which are re-applied to the newest
 *       metadata) always succeed after a retry on the new base.</li>
 *   <li>Row-level operations (copy-on-write DELETE, merge-on-read row delta) validate from their
 *       scan snapshot: they conflict when the starting snapshot is no longer an ancestor of the
 *       current one ({@code MergingSnapshotProducer.validationHistory}: "Cannot determine history
 *       between starting snapshot"), when a file they remove or add deletes for was removed
 *       ({@code validateDeletedDataFiles}, {@code validateDataFilesExist}), when deletes were added
 *       for such a file ({@code validateNoNewDeletesForDataFiles}; for v3 {@code validateAddedDVs}:
 *       "concurrent DVs on one data file always conflict"), and, under serializable isolation only,
 *       when an {@code append} or {@code overwrite} snapshot added a data file that may hold rows
 *       matching their filter ({@code validateAddedDataFiles}; a {@code replace} snapshot, i.e. a
 *       compaction, never counts).</li>
 *   <li>Compaction validates from its starting snapshot that the files it replaces are still live
 *       and got no new deletes ({@code BaseRewriteFiles.validate}); it never conflicts with added
 *       data, so isolation does not apply.</li>
 * </ol>
 * Floe configures one row-delta validation for DELETE, UPDATE and MERGE alike (Iceberg's
 * UPDATE/MERGE configuration: {@code validateNoConflictingDeleteFiles} included). Where Iceberg's
 * {@code validateNoNewDeleteFiles} matches any delete file in the filter's partitions, the
 * expectation here is per data file: a delete file that names its data file
 * ({@code referenced_data_file}, as every v2 position delete file Floe writes and every v3 DV does)
 * applies to that file only, so it cannot change rows of another file that A read or rewrote
 * (A's MERGE outcome for rows it did not change does not depend on them). Partition-scoped
 * position delete files (no referenced file, as other engines write them; B only) apply to every
 * older file of their partition, so they conflict with any A that rewrites or deletes from a file
 * of that partition, as in Iceberg.
 */
final class ConflictMatrixExpectations {
  private ConflictMatrixExpectations() {}

  static Outcome expected(ConflictMatrixCase c) {
    Op a = c.a();
    Op b = c.b();
    switch (a) {
      case DELETE_COW:
      case ROW_DELTA_POS:
      case ROW_DELTA_DV:
      case ROW_DELTA_UPDATE:
        boolean dataConflict = c.isolation() == IsolationLevel.SERIALIZABLE && addsDataMatchingFilter(b, c.placement());
        return breaksHistory(b) || removesTargetFile(b, c.placement()) || addsDeletesForTarget(b, c.placement())
            || dataConflict ? Outcome.CONFLICTS : Outcome.SUCCEEDS;
      case REWRITE:
        return breaksHistory(b) || removesTargetFile(b, c.placement()) || addsDeletesForTarget(b, c.placement())
            ? Outcome.CONFLICTS : Outcome.SUCCEEDS;
      default:
        return Outcome.SUCCEEDS;
    }
  }

  /** REPLACE TABLE starts a history without the snapshot A read. */
  private static boolean breaksHistory(Op b) {
    return b == Op.REPLACE_TABLE;
  }

  /** Whether B's commit removes A's data file (directly, or with its partition or whole table). */
  private static boolean removesTargetFile(Op b, Placement p) {
    switch (b) {
      case DELETE_COW:
      case REWRITE:
        return p == Placement.SAME_FILE;
      case OVERWRITE:
      case REPLACE_PARTITIONS:
        return p != Placement.OTHER_PARTITION;
      case REPLACE_TABLE:
        return true;
      default:
        return false;
    }
  }

  /**
   * Whether B adds deletes (position delete file or DV) that apply to A's data file: one that names
   * it, or a partition-scoped one for its partition (any file of an unpartitioned table).
   */
  private static boolean addsDeletesForTarget(Op b, Placement p) {
    if (b == Op.PARTITION_DELETES) {
      return p != Placement.OTHER_PARTITION;
    }
    return (b == Op.ROW_DELTA_POS || b == Op.ROW_DELTA_DV || b == Op.ROW_DELTA_UPDATE) && p == Placement.SAME_FILE;
  }

  /**
   * Whether B's snapshot is an {@code append} or {@code overwrite} that adds a data file that may
   * hold rows of A's filter ({@code region = 'eu'}): any file of partition eu, and any file of an
   * unpartitioned table (no partition or column bounds rule it out).
   */
  private static boolean addsDataMatchingFilter(Op b, Placement p) {
    switch (b) {
      case APPEND:
      case APPEND_THEN_EXPIRE: // the expired starting snapshot is the parent of the oldest one left: history is whole
      case OVERWRITE:
      case DELETE_COW:
      case REPLACE_PARTITIONS:
      case REPLACE_TABLE:
      case ROW_DELTA_UPDATE: // an overwrite snapshot: the updated rows are new data files
        return p != Placement.OTHER_PARTITION;
      default:
        return false;
    }
  }
}
