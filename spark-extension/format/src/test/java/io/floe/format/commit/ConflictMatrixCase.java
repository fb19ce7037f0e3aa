package io.floe.format.commit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One cell of the conflict matrix (docs/reliability.md, R2): operation A reads the table (its
 * starting snapshot), operation B commits, then A commits; with A's isolation level when A
 * validates, and where B's change lies relative to A's.
 */
final class ConflictMatrixCase {
  private final Op a;
  private final Op b;
  private final IsolationLevel isolation;
  private final Placement placement;

  ConflictMatrixCase(Op a, Op b, IsolationLevel isolation, Placement placement) {
    this.a = a;
    this.b = b;
    this.isolation = isolation;
    this.placement = placement;
  }

  Op a() {
    return a;
  }

  Op b() {
    return b;
  }

  IsolationLevel isolation() {
    return isolation;
  }

  Placement placement() {
    return placement;
  }

  /** The operations of the matrix, as Floe's engines issue them (see {@link ConflictMatrixOps}). */
  enum Op {
    APPEND(true, false),
    OVERWRITE(true, false),
    DELETE_COW(true, true),
    ROW_DELTA_POS(true, true),
    ROW_DELTA_DV(true, true),
    ROW_DELTA_UPDATE(true, true),
    /** Only as B: a v2 position delete file without referenced_data_file, as other engines write them. */
    PARTITION_DELETES(true, false),
    REWRITE(true, false),
    REPLACE_PARTITIONS(true, false),
    /** Only as B: an append, then an expiry that removes every older snapshot, A's starting one too. */
    APPEND_THEN_EXPIRE(true, false),
    REPLACE_TABLE(false, false),
    SCHEMA_CHANGE(false, false),
    EXPIRE(false, false),
    INDEX_BUILD(false, false);

    /** Whether the operation changes particular files or partitions (so placement matters). */
    final boolean placed;
    /** Whether the operation validates per an isolation level (row-level DELETE/UPDATE/MERGE). */
    final boolean isolated;

    Op(boolean placed, boolean isolated) {
      this.placed = placed;
      this.isolated = isolated;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Floe never writes partition-scoped delete files (it must only cope with other writers' ones);
     * an append followed by an expiry is two operations, each of which runs as A on its own.
     */
    boolean runsAsA() {
      return this != PARTITION_DELETES && this != APPEND_THEN_EXPIRE;
    }
  }

  /**
   * Where B's change lies relative to A's on a table partitioned by region: on A's data file, on
   * another file of A's partition, in another partition; or on another file of an unpartitioned
   * table. {@link #ANY} when neither operation changes particular files.
   */
  enum Placement { SAME_FILE, SAME_PARTITION, OTHER_PARTITION, UNPARTITIONED, ANY;

    boolean partitioned() {
      return this != UNPARTITIONED;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** What happened to A. */
  enum Outcome { SUCCEEDS, CONFLICTS }

  /**
   * Format v3 when a deletion vector is involved, v2 (position delete files) otherwise; a
   * merge-on-read UPDATE writes whichever the table's version takes.
   */
  int formatVersion() {
    return a == Op.ROW_DELTA_DV || b == Op.ROW_DELTA_DV ? 3 : 2;
  }

  @Override
  public String toString() {
    return "A=" + a.label() + " B=" + b.label() + (a.isolated ? " " + isolation.name().toLowerCase(Locale.ROOT) : "")
        + " " + placement.label();
  }

  /**
   * Every meaningful cell: each operation against each (position deletes and deletion vectors
   * never share a table: v2 has no DVs, v3 no new position delete files); both isolation levels
   * when A validates; all four placements when both operations are placed, one partitioned and
   * one unpartitioned table when one is, and one table when neither is.
   */
  static List<ConflictMatrixCase> all() {
    List<ConflictMatrixCase> cases = new ArrayList<>();
    for (Op a : Op.values()) {
      if (!a.runsAsA()) {
        continue;
      }
      for (Op b : Op.values()) {
        boolean positionFiles = a == Op.ROW_DELTA_POS || b == Op.ROW_DELTA_POS || b == Op.PARTITION_DELETES;
        if (positionFiles && (a == Op.ROW_DELTA_DV || b == Op.ROW_DELTA_DV)) {
          continue;
        }
        List<Placement> placements = a.placed && b.placed
            ? List.of(Placement.SAME_FILE, Placement.SAME_PARTITION, Placement.OTHER_PARTITION, Placement.UNPARTITIONED)
            : a.placed || b.placed ? List.of(Placement.SAME_FILE, Placement.UNPARTITIONED) : List.of(Placement.ANY);
        List<IsolationLevel> levels = a.isolated ? List.of(IsolationLevel.SERIALIZABLE, IsolationLevel.SNAPSHOT)
            : List.of(IsolationLevel.SERIALIZABLE);
        for (IsolationLevel level : levels) {
          for (Placement p : placements) {
            cases.add(new ConflictMatrixCase(a, b, level, p));
          }
        }
      }
    }
    return cases;
  }
}
