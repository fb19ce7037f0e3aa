package io.floe.spark.source;

import java.util.List;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Applies a data file's equality deletes to its batches: each {@link EqualityDeleteSet} (one per
 * distinct set of equality field ids) removes the live rows whose key columns it holds. The key
 * columns are found by field id in the batch's read schema (see {@link EqualityDeleteColumns#merge}).
 */
final class EqualityDeleteFilter {
  private final EqualityDeleteSet[] sets;
  private final EqualityDeleteSet.Columns[] columns;
  private final int[] hashes;

  EqualityDeleteFilter(List<EqualityDeleteSet> sets, StructType readSchema, int capacity) {
    this.sets = sets.toArray(new EqualityDeleteSet[0]);
    this.columns = new EqualityDeleteSet.Columns[this.sets.length];
    for (int s = 0; s < this.sets.length; s++) {
      List<Integer> ids = this.sets[s].fieldIds();
      int[][] paths = new int[ids.size()][];
      for (int c = 0; c < paths.length; c++) {
        paths[c] = EqualityDeleteColumns.pathOf(readSchema, ids.get(c));
        if (paths[c] == null) {
          throw new IllegalArgumentException("Cannot apply equality deletes: field id " + ids.get(c)
              + " is not in the read schema " + readSchema.simpleString());
        }
      }
      columns[s] = this.sets[s].columns(paths);
    }
    this.hashes = new int[capacity];
  }

  /** Finds the key columns in the reader's batch; called again when the reader's vectors change. */
  void bind(ColumnarBatch raw) {
    for (EqualityDeleteSet.Columns c : columns) {
      c.bind(raw);
    }
  }

  /**
   * Removes deleted rows from the live rows ({@code 0..n-1} when {@code identity}, else
   * {@code rowIds[0..n)}). Returns how many are left, in {@code rowIds}, or -1 when
   * {@code identity} and none was removed.
   */
  int apply(int n, int[] rowIds, boolean identity) {
    int live = n;
    boolean all = identity;
    for (int s = 0; s < sets.length && live > 0; s++) {
      int left = sets[s].filter(columns[s], live, rowIds, all, hashes);
      if (left >= 0) {
        live = left;
        all = false;
      }
    }
    return all ? -1 : live;
  }
}
