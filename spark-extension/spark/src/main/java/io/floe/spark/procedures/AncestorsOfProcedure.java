package io.floe.spark.procedures;

import io.floe.format.SnapshotErrors;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.ManageSnapshots;
import io.floe.format.commit.SnapshotListing;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.util.SparkExceptions;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.ancestors_of(table => 'db.t' [, snapshot_id => 123])}: the snapshot (the
 * current one by default) and its ancestors, newest first, one row each with the snapshot id and its
 * commit time in milliseconds. The walk stops at a parent that has expired.
 */
final class AncestorsOfProcedure extends FloeProcedure {
  static final String NAME = "ancestors_of";
  static final StructType OUTPUT = new StructType()
      .add("snapshot_id", DataTypes.LongType, false)
      .add("timestamp", DataTypes.LongType, false);

  AncestorsOfProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Lists a snapshot and its ancestors", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        optional("snapshot_id", DataTypes.LongType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    TableMetadata metadata = loadTable(ident).current();
    Long snapshotId = optionalLong(args, 1);
    if (snapshotId != null && metadata.snapshot(snapshotId) == null) {
      throw SparkExceptions.thrown(SnapshotErrors.snapshotNotFound(tableName(ident), String.valueOf(snapshotId),
          "Cannot run " + qualifiedName() + " on table " + tableName(ident) + ": snapshot " + snapshotId
              + " does not exist; " + SnapshotListing.describe(metadata)));
    }
    Long start = snapshotId != null ? snapshotId
        : metadata.currentSnapshot() == null ? null : metadata.currentSnapshot().snapshotId();
    InternalRow[] rows = ManageSnapshots.ancestors(metadata, start).stream()
        .map(s -> (InternalRow) new GenericInternalRow(new Object[] {s.snapshotId(), s.timestampMillis()}))
        .toArray(InternalRow[]::new);
    return result(OUTPUT, rows);
  }

}
