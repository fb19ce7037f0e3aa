package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The procedures that move a table's main branch to an existing snapshot (rollback_to_snapshot,
 * rollback_to_timestamp, set_current_snapshot): one metadata commit, recomputed from the newest
 * metadata if another writer committed first. Returns one row: the snapshot that was current
 * before and the one that is current after.
 */
abstract class SnapshotChangeProcedure extends FloeProcedure {
  static final StructType OUTPUT = new StructType()
      .add("previous_snapshot_id", DataTypes.LongType, true)
      .add("current_snapshot_id", DataTypes.LongType, true);

  SnapshotChangeProcedure(CatalogAccess catalog, String name, String description, ProcedureParameter[] parameters) {
    super(catalog, name, description, parameters);
  }

  /** The next metadata for {@code base}; IllegalArgumentException for user errors. */
  abstract TableMetadata change(TableMetadata base, InternalRow args, String table);

  /** Checks the arguments before the table is touched (nothing by default). */
  void checkArguments(InternalRow args) {}

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String table = tableName(ident);
    checkArguments(args);
    FileSystemTableOperations ops = loadTable(ident);
    Long[] previous = new Long[1];
    TableMetadata committed = commitMetadata(ops, base -> {
      previous[0] = id(base.currentSnapshot());
      return change(base, args, table);
    });
    return result(OUTPUT, new GenericInternalRow(new Object[] {previous[0], id(committed.currentSnapshot())}));
  }

  private static Long id(Snapshot snapshot) {
    return snapshot == null ? null : snapshot.snapshotId();
  }
}
