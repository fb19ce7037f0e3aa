package io.floe.spark.procedures;

import io.floe.format.commit.ManageSnapshots;
import io.floe.format.metadata.TableMetadata;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL floe.system.set_current_snapshot(table => 'db.t', snapshot_id => 123)} or
 * {@code (table => 'db.t', ref => 'audit')}: makes any snapshot of the table, or the head of a
 * branch or tag, current (unlike rollback, it need not be an ancestor). Exactly one of
 * {@code snapshot_id} and {@code ref} must be given.
 */
final class SetCurrentSnapshotProcedure extends SnapshotChangeProcedure {
  static final String NAME = "set_current_snapshot";

  SetCurrentSnapshotProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Sets a table's current snapshot to any snapshot or the head of a ref",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            optional("snapshot_id", DataTypes.LongType),
            optional("ref", DataTypes.StringType)});
  }

  @Override
  void checkArguments(InternalRow args) {
    boolean hasId = !args.isNullAt(1);
    boolean hasRef = optionalString(args, 2) != null;
    if (hasId == hasRef) {
      throw argumentError(hasId ? "ref" : "snapshot_id", "Cannot run " + qualifiedName()
          + ": give exactly one of the arguments snapshot_id and ref"
          + (hasId ? " (both were given)" : ""));
    }
  }

  @Override
  TableMetadata change(TableMetadata base, InternalRow args, String table) {
    String ref = optionalString(args, 2);
    return ref != null ? ManageSnapshots.setCurrentToRef(base, ref, table)
        : ManageSnapshots.setCurrentSnapshot(base, args.getLong(1), table);
  }
}
