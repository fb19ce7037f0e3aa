package io.floe.format.commit;

import io.floe.format.SnapshotErrors;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.SnapshotRefType;
import io.floe.format.metadata.TableMetadata;
import java.util.Locale;

/**
 * Creates, replaces, drops and fast-forwards a table's branches and tags, as Iceberg's
 * {@code ManageSnapshots} and its SQL ({@code ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG ...},
 * {@code REPLACE BRANCH|TAG}, {@code DROP BRANCH|TAG}, {@code fast_forward}) do. Each method is pure:
 * it returns the next metadata for {@code base}, or throws IllegalArgumentException (a refused change)
 * or a {@link io.floe.format.FloeException} (a ref or snapshot the table does not have).
 */
public final class ManageRefs {
  /** Which of CREATE, REPLACE and CREATE OR REPLACE a statement is. */
  public enum Mode { CREATE, REPLACE, CREATE_OR_REPLACE }

  /** The retention a statement sets; null fields are left as they are (or unset on a new ref). */
  public record Retention(Integer minSnapshotsToKeep, Long maxSnapshotAgeMs, Long maxRefAgeMs) {
    public static final Retention NONE = new Retention(null, null, null);
  }

  private ManageRefs() {}

  /**
   * The snapshot a commit to {@code branch} builds on: the branch's head, or main's current snapshot
   * when the branch does not exist yet (the commit creates it from there). A tag is an error.
   */
  public static Snapshot branchHead(TableMetadata base, String branch, String table) {
    SnapshotRef ref = base.ref(branch);
    if (ref == null) {
      return base.currentSnapshot();
    }
    if (ref.isTag()) {
      throw SnapshotErrors.writeToTag(table, branch);
    }
    return base.snapshot(ref.snapshotId());
  }

  /**
   * {@code CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] name [AS OF VERSION snapshotId]} and
   * {@code REPLACE BRANCH|TAG name}: points the ref at {@code snapshotId} (null: the current
   * snapshot). Replacing keeps the ref's retention except what {@code retention} sets.
   */
  public static TableMetadata createOrReplace(TableMetadata base, String table, String name, SnapshotRefType type,
      Long snapshotId, Mode mode, boolean ifNotExists, Retention retention) {
    String kind = kind(type);
    String action = "Cannot " + (mode == Mode.REPLACE ? "replace " : "create ") + kind + " '" + name + "' of table "
        + table;
    if (SnapshotRef.MAIN_BRANCH.equals(name) && type == SnapshotRefType.TAG) {
      throw new IllegalArgumentException(action + ": main is the table's main branch and cannot be a tag");
    }
    SnapshotRef existing = base.ref(name);
    if (existing != null && existing.type() != type) {
      throw new IllegalArgumentException(action + ": a " + kind(existing.type()) + " has that name (use "
          + kind(existing.type()).toUpperCase(Locale.ROOT) + " statements for it, or choose another name)");
    }
    if (existing == null && mode == Mode.REPLACE) {
      throw SnapshotErrors.refNotFound(action, table, kind, name, SnapshotListing.describe(base)
          + " (use CREATE OR REPLACE " + kind.toUpperCase(Locale.ROOT) + " to create it)");
    }
    if (existing != null && mode == Mode.CREATE) {
      if (ifNotExists) {
        return base;
      }
      throw new IllegalArgumentException(action + ": it already exists (at snapshot " + existing.snapshotId()
          + "); use CREATE OR REPLACE " + kind.toUpperCase(Locale.ROOT) + " or REPLACE "
          + kind.toUpperCase(Locale.ROOT) + " to move it, or IF NOT EXISTS to keep it");
    }
    long target = targetSnapshot(base, table, action, snapshotId);
    SnapshotRef.Builder ref = existing != null ? existing.toBuilder().snapshotId(target)
        : SnapshotRef.builderFor(target, type);
    if (retention.minSnapshotsToKeep() != null) {
      ref.minSnapshotsToKeep(retention.minSnapshotsToKeep());
    }
    if (retention.maxSnapshotAgeMs() != null) {
      ref.maxSnapshotAgeMs(retention.maxSnapshotAgeMs());
    }
    if (retention.maxRefAgeMs() != null) {
      ref.maxRefAgeMs(retention.maxRefAgeMs());
    }
    SnapshotRef built;
    try {
      built = ref.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(action + ": " + e.getMessage(), e);
    }
    return TableMetadata.buildFrom(base).setRef(name, built).build();
  }

  /** {@code DROP BRANCH|TAG [IF EXISTS] name}. Main cannot be dropped. */
  public static TableMetadata drop(TableMetadata base, String table, String name, SnapshotRefType type,
      boolean ifExists) {
    String kind = kind(type);
    String action = "Cannot drop " + kind + " '" + name + "' of table " + table;
    if (SnapshotRef.MAIN_BRANCH.equals(name)) {
      throw new IllegalArgumentException(action + ": main is the table's current state and cannot be dropped");
    }
    SnapshotRef existing = base.ref(name);
    if (existing == null) {
      if (ifExists) {
        return base;
      }
      throw SnapshotErrors.refNotFound(action, table, kind, name, SnapshotListing.describe(base));
    }
    if (existing.type() != type) {
      throw new IllegalArgumentException(action + ": '" + name + "' is a " + kind(existing.type()) + "; use DROP "
          + kind(existing.type()).toUpperCase(Locale.ROOT));
    }
    return TableMetadata.buildFrom(base).removeRef(name).build();
  }

  /**
   * {@code fast_forward(branch, to)}: moves {@code branch} to the snapshot of ref {@code to}, which
   * must descend from the branch's head (the branch only gains snapshots). A branch that does not
   * exist is created there, as Iceberg does.
   */
  public static TableMetadata fastForward(TableMetadata base, String table, String branch, String to) {
    String action = "Cannot fast-forward branch '" + branch + "' of table " + table + " to '" + to + "'";
    SnapshotRef target = base.ref(to);
    if (target == null) {
      throw SnapshotErrors.refNotFound(action, table, "branch or tag", to, SnapshotListing.describe(base));
    }
    SnapshotRef existing = base.ref(branch);
    if (existing == null) {
      return TableMetadata.buildFrom(base).setRef(branch, SnapshotRef.branch(target.snapshotId())).build();
    }
    if (existing.isTag()) {
      throw new IllegalArgumentException(action + ": '" + branch + "' is a tag, and only branches move");
    }
    if (existing.snapshotId() == target.snapshotId()) {
      return base;
    }
    if (!isAncestor(base, target.snapshotId(), existing.snapshotId())) {
      throw new IllegalArgumentException(action + ": the head of '" + branch + "' (snapshot " + existing.snapshotId()
          + ") is not an ancestor of the head of '" + to + "' (snapshot " + target.snapshotId() + "), so the"
          + " branches have diverged; cherry-pick the snapshots instead, or REPLACE BRANCH to discard "
          + branch + "'s own snapshots");
    }
    return TableMetadata.buildFrom(base).setBranchSnapshot(target.snapshotId(), branch).build();
  }

  /** Whether {@code ancestorId} is {@code snapshotId} or one of its ancestors. */
  static boolean isAncestor(TableMetadata base, long snapshotId, long ancestorId) {
    Snapshot s = base.snapshot(snapshotId);
    while (s != null) {
      if (s.snapshotId() == ancestorId) {
        return true;
      }
      s = s.parentId() == null ? null : base.snapshot(s.parentId());
    }
    return false;
  }

  private static long targetSnapshot(TableMetadata base, String table, String action, Long snapshotId) {
    if (snapshotId != null) {
      if (base.snapshot(snapshotId) == null) {
        throw SnapshotErrors.snapshotNotFound(table, Long.toString(snapshotId), action + ": no snapshot has id "
            + snapshotId + "; " + SnapshotListing.describe(base));
      }
      return snapshotId;
    }
    if (base.currentSnapshot() == null) {
      throw new IllegalArgumentException(action + ": the table has no snapshot yet; write to it first, or name "
          + "a snapshot with AS OF VERSION");
    }
    return base.currentSnapshot().snapshotId();
  }

  private static String kind(SnapshotRefType type) {
    return type == SnapshotRefType.TAG ? "tag" : "branch";
  }
}
