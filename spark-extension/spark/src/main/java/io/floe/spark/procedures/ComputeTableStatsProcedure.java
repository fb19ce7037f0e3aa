package io.floe.spark.procedures;

import io.floe.format.FloeException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.stats.TableStatistics;
import io.floe.spark.util.PhaseLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code CALL floe.system.compute_table_stats(table => 'db.t', snapshot_id => 123, columns =>
 * array('a', 'b'))}, Iceberg's signature and output: writes theta sketches of the columns (default:
 * every top-level primitive column) at the snapshot (default: current) to a Puffin file under
 * {@code metadata/}, registers it in the metadata's {@code statistics} (replacing that snapshot's
 * previous file, which is deleted) and returns its path as {@code statistics_file}. No row when the
 * table has no snapshot, or when {@code columns} is an empty array (table-level statistics only,
 * which Floe keeps in its metadata anyway: how ANALYZE TABLE ... COMPUTE STATISTICS runs).
 */
final class ComputeTableStatsProcedure extends FloeProcedure {
  static final String NAME = "compute_table_stats";
  private static final Logger LOG = LoggerFactory.getLogger(ComputeTableStatsProcedure.class);
  private static final StructType OUTPUT = new StructType().add("statistics_file", DataTypes.StringType, true);

  ComputeTableStatsProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Computes theta-sketch column statistics of a table snapshot into a Puffin file",
        new ProcedureParameter[] {
            ProcedureParameter.in("table", DataTypes.StringType).build(),
            ProcedureParameter.in("snapshot_id", DataTypes.LongType).defaultValue("NULL").build(),
            ProcedureParameter.in("columns", DataTypes.createArrayType(DataTypes.StringType))
                .defaultValue("NULL").build()});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String table = tableName(ident);
    Long snapshotId = optionalLong(args, 1);
    List<String> columns = columns(args, table);
    FileSystemTableOperations ops = loadTable(ident);
    if (columns != null && columns.isEmpty()) {
      return result(OUTPUT);
    }
    TableStatistics.Target target = new TableStatistics.Target(ops, table, quoted(ident),
        catalog().name() + "." + ops.tableName());
    TableStatistics.Result computed;
    PhaseLog progress = PhaseLog.start(NAME, table);
    try {
      computed = TableStatistics.compute(SparkSession.active(), target, snapshotId, columns);
    } catch (IllegalArgumentException | FloeException e) {
      throw refused("", e);
    }
    if (computed == null) {
      return result(OUTPUT);
    }
    StatisticsFile file = computed.file();
    progress.phase("sketched " + file.blobMetadata().size() + " columns of snapshot " + file.snapshotId() + " ("
        + (computed.incremental() ? "incremental: " + computed.filesSketched() + " new data files read"
            : "full scan") + ") into " + file.fileSizeInBytes() + " bytes");
    StatisticsFile[] replaced = new StatisticsFile[1];
    try {
      commitMetadata(ops, base -> {
        if (base.snapshot(file.snapshotId()) == null) {
          throw new IllegalArgumentException("Cannot register statistics of table " + table + ": snapshot "
              + file.snapshotId() + " was expired while they were computed");
        }
        replaced[0] = base.statisticsFiles().stream().filter(f -> f.snapshotId() == file.snapshotId())
            .findFirst().orElse(null);
        return TableMetadata.buildFrom(base).setStatistics(file).build();
      });
    } catch (CommitStateUnknownException e) {
      throw e; // the file may be registered: keep it
    } catch (RuntimeException e) {
      delete(ops, file.path(), table);
      throw e;
    }
    if (replaced[0] != null && !replaced[0].path().equals(file.path())) {
      delete(ops, replaced[0].path(), table);
    }
    progress.phase("committed statistics file " + file.path()
        + (replaced[0] != null ? " (replacing the snapshot's previous one)" : ""));
    LOG.info("Computed statistics of table {} at snapshot {} ({}): {}", table, file.snapshotId(),
        computed.incremental() ? "incremental from snapshot " + computed.baseSnapshotId() + ", "
            + computed.filesSketched() + " new data files" : "full", file.path());
    return result(OUTPUT, new GenericInternalRow(new Object[] {UTF8String.fromString(file.path())}));
  }

  private List<String> columns(InternalRow args, String table) {
    if (args.isNullAt(2)) {
      return null;
    }
    ArrayData array = args.getArray(2);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < array.numElements(); i++) {
      if (array.isNullAt(i)) {
        throw argumentError("columns", "Cannot run " + qualifiedName() + " on table " + table
            + ": columns contains a null name");
      }
      out.add(array.getUTF8String(i).toString());
    }
    return out;
  }

  private static void delete(FileSystemTableOperations ops, String path, String table) {
    try {
      ops.io().deleteFile(path);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot delete statistics file {} of table {}", path, table, e);
    }
  }
}
