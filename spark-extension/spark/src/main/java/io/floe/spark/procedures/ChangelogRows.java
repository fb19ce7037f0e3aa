package io.floe.spark.procedures;

import static org.apache.spark.sql.functions.abs;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.raise_error;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.floe.spark.source.FloeChangelogScan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * The row rules of {@code create_changelog_view} over the rows of {@code db.t.changes}, with
 * Iceberg's semantics, as window aggregates (no per-row iterator):
 * <ul>
 *   <li>carry-overs: within one change ordinal, rows equal in every column that are both deleted
 *       and inserted (a copy-on-write rewrite keeping them) cancel pairwise; the surplus stays;
 *   <li>net changes: the same over the whole range, so a row inserted and later deleted vanishes;
 *       the surviving rows are the latest of their kind;
 *   <li>update images: within one ordinal, after carry-overs, a DELETE and an INSERT with the same
 *       identifier columns become UPDATE_BEFORE and UPDATE_AFTER; two DELETEs with the same
 *       identifier columns fail the query, as in Iceberg.
 * </ul>
 */
final class ChangelogRows {
  static final String DELETE = "DELETE";
  static final String INSERT = "INSERT";
  private static final String TYPE = FloeChangelogScan.CHANGE_TYPE;
  private static final String ORDINAL = FloeChangelogScan.CHANGE_ORDINAL;
  private static final String SNAPSHOT = FloeChangelogScan.COMMIT_SNAPSHOT_ID;
  private static final String DELETES = "__floe_deletes";
  private static final String INSERTS = "__floe_inserts";
  private static final String RANK = "__floe_rank";

  private ChangelogRows() {}

  /** Removes carry-over rows, per ordinal or (net changes) over the whole range. */
  static Dataset<Row> removeCarryovers(Dataset<Row> changes, boolean netChanges) {
    List<Column> key = new ArrayList<>();
    for (String name : changes.columns()) {
      boolean change = name.equals(TYPE) || (netChanges && (name.equals(ORDINAL) || name.equals(SNAPSHOT)));
      if (!change) {
        key.add(changes.col(quote(name)));
      }
    }
    WindowSpec same = Window.partitionBy(key.toArray(new Column[0]));
    // the latest rows of each kind first, so a net change keeps the newest ones
    WindowSpec sameKind = Window.partitionBy(with(key, changes.col(TYPE)))
        .orderBy(changes.col(ORDINAL).desc(), changes.col(SNAPSHOT).desc());
    Column surplus = abs(col(INSERTS).minus(col(DELETES)));
    Column surplusKind = when(col(INSERTS).gt(col(DELETES)), lit(INSERT)).otherwise(lit(DELETE));
    return changes
        .withColumn(DELETES, sum(when(col(TYPE).equalTo(DELETE), 1).otherwise(0)).over(same))
        .withColumn(INSERTS, sum(when(col(TYPE).equalTo(INSERT), 1).otherwise(0)).over(same))
        .withColumn(RANK, row_number().over(sameKind))
        .where(col(TYPE).equalTo(surplusKind).and(col(RANK).leq(surplus)))
        .select(columns(changes));
  }

  /** Removes carry-overs per ordinal, then pairs deletes and inserts of the same identifier into update images. */
  static Dataset<Row> computeUpdates(Dataset<Row> changes, List<String> identifierColumns, String table) {
    Dataset<Row> rows = removeCarryovers(changes, false);
    List<Column> key = new ArrayList<>();
    identifierColumns.forEach(c -> key.add(rows.col(quote(c))));
    key.add(rows.col(ORDINAL));
    WindowSpec same = Window.partitionBy(key.toArray(new Column[0]));
    WindowSpec sameKind = Window.partitionBy(with(key, rows.col(TYPE))).orderBy(rows.col(SNAPSHOT));
    Column type = when(col(DELETES).gt(1), raise_error(lit("Cannot compute updates of " + table
        + " because there are multiple rows with the same identifier columns (" + String.join(", ",
        identifierColumns) + ") in one snapshot; give identifier_columns that are unique, or set "
        + "compute_updates => false")).cast("string"))
        .when(col(DELETES).equalTo(1).and(col(INSERTS).geq(1)).and(col(TYPE).equalTo(DELETE)), lit("UPDATE_BEFORE"))
        .when(col(DELETES).equalTo(1).and(col(TYPE).equalTo(INSERT)).and(col(RANK).equalTo(1)), lit("UPDATE_AFTER"))
        .otherwise(col(TYPE));
    return rows
        .withColumn(DELETES, sum(when(col(TYPE).equalTo(DELETE), 1).otherwise(0)).over(same))
        .withColumn(INSERTS, sum(when(col(TYPE).equalTo(INSERT), 1).otherwise(0)).over(same))
        .withColumn(RANK, row_number().over(sameKind))
        .withColumn(TYPE, type)
        .select(columns(changes));
  }

  private static Column[] with(List<Column> key, Column extra) {
    List<Column> out = new ArrayList<>(key);
    out.add(extra);
    return out.toArray(new Column[0]);
  }

  private static Column[] columns(Dataset<Row> changes) {
    return Arrays.stream(changes.columns()).map(c -> col(quote(c))).toArray(Column[]::new);
  }

  static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
