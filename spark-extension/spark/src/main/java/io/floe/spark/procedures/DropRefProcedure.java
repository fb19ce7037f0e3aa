package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.ManageRefs;
import io.floe.format.metadata.SnapshotRefType;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.drop_branch|drop_tag(table => 'db.t', ref => 'b', if_exists => false)}:
 * what {@code ALTER TABLE t DROP BRANCH|TAG [IF EXISTS] b} runs (see {@link ManageRefs#drop}). The
 * snapshots only the ref kept go at the next expire_snapshots. Returns no rows.
 */
final class DropRefProcedure extends FloeProcedure {
  static final String BRANCH_NAME = "drop_branch";
  static final String TAG_NAME = "drop_tag";

  private final SnapshotRefType type;

  private DropRefProcedure(CatalogAccess catalog, SnapshotRefType type) {
    super(catalog, type == SnapshotRefType.TAG ? TAG_NAME : BRANCH_NAME,
        "Drops a " + (type == SnapshotRefType.TAG ? "tag" : "branch") + " of a table", new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            required("ref", DataTypes.StringType),
            optional("if_exists", DataTypes.BooleanType)});
    this.type = type;
  }

  static DropRefProcedure branch(CatalogAccess catalog) {
    return new DropRefProcedure(catalog, SnapshotRefType.BRANCH);
  }

  static DropRefProcedure tag(CatalogAccess catalog) {
    return new DropRefProcedure(catalog, SnapshotRefType.TAG);
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String ref = requiredString(args, 1, "ref");
    boolean ifExists = Boolean.TRUE.equals(optionalBoolean(args, 2));
    String table = tableName(ident);
    commitMetadata(loadTable(ident), base -> ManageRefs.drop(base, table, ref, type, ifExists));
    return result(new StructType());
  }
}
