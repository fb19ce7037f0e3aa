package io.floe.spark.procedures;

import io.floe.format.commit.ManageSnapshots;
import io.floe.format.metadata.TableMetadata;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL floe.system.rollback_to_timestamp(table => 'db.t', timestamp => TIMESTAMP '...')}:
 * makes current the newest ancestor of the current snapshot committed strictly before the time.
 */
final class RollbackToTimestampProcedure extends SnapshotChangeProcedure {
  static final String NAME = "rollback_to_timestamp";

  RollbackToTimestampProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Rolls a table back to the snapshot that was current before a time",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            required("timestamp", DataTypes.TimestampType)});
  }

  @Override
  void checkArguments(InternalRow args) {
    requiredTimestampMillis(args, 1, "timestamp");
  }

  @Override
  TableMetadata change(TableMetadata base, InternalRow args, String table) {
    return ManageSnapshots.rollbackToTime(base, requiredTimestampMillis(args, 1, "timestamp"), table);
  }
}
