package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.index.IndexFileCleanup;
import io.floe.format.maintenance.DeletionCounts;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.spark.util.PhaseLog;
import io.floe.spark.util.SparkExceptions;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code CALL floe.system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP '...',
 * retain_last => 1, max_concurrent_deletes => 4, stream_results => false, snapshot_ids => array(...),
 * clean_expired_metadata => false)}: Iceberg's arguments, in Iceberg's order. Expires snapshots by the
 * table's retention rules ({@link ExpireSnapshots}), then deletes the files no retained snapshot or
 * ref reaches, and returns one row of deleted-file counts by kind, with Iceberg's column names.
 * {@code stream_results} is accepted for compatibility and changes nothing.
 */
final class ExpireSnapshotsProcedure extends FloeProcedure {
  private static final Logger LOG = LoggerFactory.getLogger(ExpireSnapshotsProcedure.class);
  /** Index files younger than this are kept when no older_than is given (a build may be in flight). */
  private static final long DEFAULT_INDEX_FILE_AGE_MS = 5L * 24 * 60 * 60 * 1000;
  static final String NAME = "expire_snapshots";

  static final StructType OUTPUT = new StructType()
      .add("deleted_data_files_count", DataTypes.LongType, false)
      .add("deleted_position_delete_files_count", DataTypes.LongType, false)
      .add("deleted_equality_delete_files_count", DataTypes.LongType, false)
      .add("deleted_manifest_files_count", DataTypes.LongType, false)
      .add("deleted_manifest_lists_count", DataTypes.LongType, false)
      .add("deleted_statistics_files_count", DataTypes.LongType, false);

  ExpireSnapshotsProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Expires old snapshots and deletes the files only they reached", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        optional("older_than", DataTypes.TimestampType),
        optional("retain_last", DataTypes.IntegerType),
        optional("max_concurrent_deletes", DataTypes.IntegerType),
        optional("stream_results", DataTypes.BooleanType),
        optional("snapshot_ids", DataTypes.createArrayType(DataTypes.LongType)),
        optional("clean_expired_metadata", DataTypes.BooleanType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String table = tableName(ident);
    FileSystemTableOperations ops = loadTable(ident);
    PhaseLog progress = PhaseLog.start(NAME, table);
    ExpireSnapshots expire = new ExpireSnapshots(ops).onPhase(progress::phase);
    try {
      Long olderThan = optionalTimestampMillis(args, 1);
      if (olderThan != null) {
        expire.expireOlderThan(olderThan);
      }
      Integer retainLast = optionalInt(args, 2);
      if (retainLast != null) {
        expire.retainLast(retainLast);
      }
      Integer maxConcurrentDeletes = optionalInt(args, 3);
      if (maxConcurrentDeletes != null) {
        expire.maxConcurrentDeletes(maxConcurrentDeletes);
      }
      if (!args.isNullAt(5)) {
        ArrayData ids = args.getArray(5);
        for (int i = 0; i < ids.numElements(); i++) {
          if (ids.isNullAt(i)) {
            throw new IllegalArgumentException("snapshot_ids must not contain NULL");
          }
          expire.expireSnapshotId(ids.getLong(i));
        }
      }
      expire.cleanExpiredMetadata(Boolean.TRUE.equals(optionalBoolean(args, 6)));
    } catch (IllegalArgumentException | FloeException e) {
      throw SparkExceptions.thrown("Cannot run " + qualifiedName() + " on " + table + ": ", e,
          ErrorClass.FLOE_PROCEDURE_ARGUMENT_INVALID);
    }
    DeletionCounts counts;
    Long indexCutoff = optionalTimestampMillis(args, 1);
    try {
      counts = expire.commit().counts();
    } catch (CatalogException e) {
      throw SparkExceptions.thrown(e); // another table's metadata is in the way; the message says what to do
    } catch (IllegalArgumentException e) {
      throw refused("Cannot run " + qualifiedName() + " on " + table + ": ", e);
    } catch (IllegalStateException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("Refusing to delete")) {
        throw userError(ErrorClass.FLOE_PROCEDURE_REFUSED, "Refusing to run " + qualifiedName() + " on " + table
            + "; the table was not changed and "
            + "nothing was deleted. " + e.getMessage());
      }
      throw e;
    }
    try {
      int deleted = deleteUnreferencedIndexFiles(ops, table, indexCutoff != null ? indexCutoff
          : System.currentTimeMillis() - DEFAULT_INDEX_FILE_AGE_MS);
      progress.phase("deleted " + deleted + " unreferenced index files");
    } catch (RuntimeException e) {
      LOG.warn("Cannot remove unreferenced index files of table {}", table, e); // the expiry is committed
    }
    return result(OUTPUT, new GenericInternalRow(new Object[] {counts.dataFiles(), counts.positionDeleteFiles(),
        counts.equalityDeleteFiles(), counts.manifests(), counts.manifestLists(), counts.statisticsFiles()}));
  }

  /**
   * Deletes the index files (docs/indexes.md) that no retained metadata's index list names and that
   * are older than {@code olderThanMillis}: segments of dropped or rewritten indexes, replaced index
   * lists. A failure to delete one is logged, never fatal: the expiry is committed.
   */
  private static int deleteUnreferencedIndexFiles(FileSystemTableOperations ops, String table, long olderThanMillis) {
    List<String> files = IndexFileCleanup.unreferenced(ops.io(), table, ops.metadataRoot() + "/metadata",
        ops.refresh(), olderThanMillis);
    int deleted = 0;
    for (String file : files) {
      try {
        deleted += ops.io().deleteFile(file) ? 1 : 0;
      } catch (IOException | RuntimeException e) {
        LOG.warn("Cannot delete index file {} of table {}", file, table, e);
      }
    }
    if (deleted > 0) {
      LOG.info("Deleted {} index files of table {} that no retained metadata names", deleted, table);
    }
    return deleted;
  }
}
