package io.floe.spark.procedures;

import io.floe.format.commit.ManageSnapshots;
import io.floe.format.metadata.TableMetadata;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL floe.system.rollback_to_snapshot(table => 'db.t', snapshot_id => 123)}: makes an
 * ancestor of the current snapshot current again. Later snapshots stay in the metadata (until
 * expired), so set_current_snapshot can undo the rollback.
 */
final class RollbackToSnapshotProcedure extends SnapshotChangeProcedure {
  static final String NAME = "rollback_to_snapshot";

  RollbackToSnapshotProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Rolls a table back to an ancestor of its current snapshot", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("snapshot_id", DataTypes.LongType)});
  }

  @Override
  void checkArguments(InternalRow args) {
    requiredLong(args, 1, "snapshot_id");
  }

  @Override
  TableMetadata change(TableMetadata base, InternalRow args, String table) {
    return ManageSnapshots.rollbackTo(base, args.getLong(1), table);
  }
}
