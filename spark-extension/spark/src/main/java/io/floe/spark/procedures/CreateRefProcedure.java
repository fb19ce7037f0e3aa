package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.ManageRefs;
import io.floe.format.metadata.SnapshotRefType;
import io.floe.format.metadata.TableMetadata;
import java.util.Iterator;
import java.util.Locale;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.create_branch|create_tag(table => 'db.t', ref => 'b', mode => 'create' |
 * 'replace' | 'create_or_replace', if_not_exists => false, snapshot_id => 1, max_ref_age_ms => ...,
 * min_snapshots_to_keep => ..., max_snapshot_age_ms => ...)}: what {@code ALTER TABLE t [CREATE [OR
 * REPLACE] | REPLACE] BRANCH|TAG ...} runs (see {@link ManageRefs#createOrReplace}). Returns no rows,
 * as the statement does.
 */
final class CreateRefProcedure extends FloeProcedure {
  static final String BRANCH_NAME = "create_branch";
  static final String TAG_NAME = "create_tag";

  private final SnapshotRefType type;

  private CreateRefProcedure(CatalogAccess catalog, SnapshotRefType type) {
    super(catalog, type == SnapshotRefType.TAG ? TAG_NAME : BRANCH_NAME,
        "Creates or replaces a " + (type == SnapshotRefType.TAG ? "tag" : "branch") + " of a table",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            required("ref", DataTypes.StringType),
            optional("mode", DataTypes.StringType),
            optional("if_not_exists", DataTypes.BooleanType),
            optional("snapshot_id", DataTypes.LongType),
            optional("max_ref_age_ms", DataTypes.LongType),
            optional("min_snapshots_to_keep", DataTypes.IntegerType),
            optional("max_snapshot_age_ms", DataTypes.LongType)});
    this.type = type;
  }

  static CreateRefProcedure branch(CatalogAccess catalog) {
    return new CreateRefProcedure(catalog, SnapshotRefType.BRANCH);
  }

  static CreateRefProcedure tag(CatalogAccess catalog) {
    return new CreateRefProcedure(catalog, SnapshotRefType.TAG);
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String ref = requiredString(args, 1, "ref");
    ManageRefs.Mode mode = mode(optionalString(args, 2));
    boolean ifNotExists = Boolean.TRUE.equals(optionalBoolean(args, 3));
    Long snapshotId = optionalLong(args, 4);
    ManageRefs.Retention retention = new ManageRefs.Retention(optionalInt(args, 6), optionalLong(args, 7),
        optionalLong(args, 5));
    String table = tableName(ident);
    FileSystemTableOperations ops = loadTable(ident);
    Long at = snapshotId;
    ManageRefs.Mode effective = mode;
    TableMetadata current = ops.current();
    if (type == SnapshotRefType.BRANCH && at == null && mode != ManageRefs.Mode.REPLACE
        && current.currentSnapshot() == null && current.ref(ref) == null) {
      // as Iceberg: a branch of a table without a snapshot starts at a new, empty snapshot of its own
      AppendFiles empty = new AppendFiles(ops);
      empty.toBranch(ref);
      at = empty.commit().snapshotId();
      effective = ManageRefs.Mode.CREATE_OR_REPLACE;
    }
    Long target = at;
    ManageRefs.Mode finalMode = effective;
    commitMetadata(ops,
        base -> ManageRefs.createOrReplace(base, table, ref, type, target, finalMode, ifNotExists, retention));
    return result(new StructType());
  }

  private ManageRefs.Mode mode(String value) {
    if (value == null) {
      return ManageRefs.Mode.CREATE;
    }
    try {
      return ManageRefs.Mode.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw argumentError("mode", "Cannot run " + qualifiedName() + ": mode must be create, replace or "
          + "create_or_replace, not '" + value + "'");
    }
  }
}
