package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.Cherrypick;
import io.floe.format.metadata.Snapshot;
import io.floe.spark.util.SparkExceptions;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.cherrypick_snapshot(table => 'db.t', snapshot_id => 123)}: publishes a
 * snapshot that is not on main (e.g. staged with write-audit-publish) onto main, by fast-forward
 * when its parent is the current snapshot, otherwise by re-applying its changes (see
 * {@link Cherrypick}). Returns the source snapshot id and the new current snapshot id.
 */
final class CherrypickSnapshotProcedure extends FloeProcedure {
  static final String NAME = "cherrypick_snapshot";
  static final StructType OUTPUT = new StructType()
      .add("source_snapshot_id", DataTypes.LongType, false)
      .add("current_snapshot_id", DataTypes.LongType, false);

  CherrypickSnapshotProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Publishes a staged or other snapshot onto a table's main branch", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("snapshot_id", DataTypes.LongType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    long snapshotId = requiredLong(args, 1, "snapshot_id");
    Snapshot current;
    try {
      current = new Cherrypick(loadTable(ident)).apply(snapshotId);
    } catch (IllegalArgumentException | FloeException e) {
      throw SparkExceptions.thrown(FloeException.reworded(e, ErrorClass.FLOE_PROCEDURE_REFUSED,
          e.getMessage().replace("table " + ident, "table " + tableName(ident))));
    }
    return result(OUTPUT, new GenericInternalRow(new Object[] {snapshotId, current.snapshotId()}));
  }
}
