package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.RewriteFiles;
import io.floe.format.commit.ValidationException;
import io.floe.format.expr.Expression;
import io.floe.format.index.FileValues;
import io.floe.format.index.IndexSync;
import io.floe.format.io.Locations;
import io.floe.format.maintenance.FileGroupPlanner;
import io.floe.format.maintenance.RewriteOptions;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.spark.source.FloeScan;
import io.floe.spark.util.CommitGate;
import io.floe.spark.util.PhaseLog;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.rewrite_data_files(table => 'db.t', strategy => 'binpack' | 'sort',
 * sort_order => 'id DESC NULLS LAST, name', options => map('target-file-size-bytes', '...'),
 * where => 'id > 10')}: compaction. Plans the live files of the current snapshot that may hold
 * rows matching {@code where} (whole files are rewritten), chooses and groups them by size per
 * partition ({@link FileGroupPlanner}), rewrites each group with its deletes applied
 * ({@link FileGroupRewriter}), and commits {@code replace} snapshots ({@link RewriteFiles}) that
 * keep the read snapshot's sequence number and fail on concurrent deletes of the rewritten files.
 * Without partial progress everything is one commit; a failed commit deletes its new files and
 * leaves the table unchanged.
 */
final class RewriteDataFilesProcedure extends FloeProcedure {
  static final String NAME = "rewrite_data_files";
  static final StructType OUTPUT = new StructType()
      .add("rewritten_data_files_count", DataTypes.IntegerType, false)
      .add("added_data_files_count", DataTypes.IntegerType, false)
      .add("rewritten_bytes_count", DataTypes.LongType, false)
      .add("failed_data_files_count", DataTypes.IntegerType, false)
      .add("removed_delete_files_count", DataTypes.IntegerType, false);

  RewriteDataFilesProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Compacts data files: combines small files, splits large ones, applies deletes",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            optional("strategy", DataTypes.StringType),
            optional("sort_order", DataTypes.StringType),
            optional("options", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType)),
            optional("where", DataTypes.StringType)});
  }

  /** What one plan read: the snapshot and the candidate files with their deletes. */
  private record Planned(Snapshot snapshot, List<FileScanTask> tasks) {
  }

  /** The outcome counters of the result row. */
  private static final class Counts {
    int rewritten;
    int added;
    long bytes;
    int failed;
    int removedDeletes;
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String table = tableName(ident);
    FileSystemTableOperations ops = loadTable(ident);
    String describe = "Cannot run " + qualifiedName() + " on table " + table;
    TableMetadata metadata = ops.refresh();
    String strategy = optionalString(args, 1) == null ? "binpack" : optionalString(args, 1).trim()
        .toLowerCase(Locale.ROOT);
    String sortOrder = optionalString(args, 2);
    RewriteOptions options;
    List<Column> sortColumns;
    try {
      options = RewriteOptions.parse(optionsArg(args, 3), metadata.properties(), describe);
      if (strategy.equals("binpack")) {
        if (sortOrder != null) {
          throw new IllegalArgumentException(describe + ": sort_order needs strategy => 'sort'");
        }
        sortColumns = null;
      } else if (strategy.equals("sort")) {
        sortColumns = sortOrder != null ? RewriteSortOrder.parse(sortOrder, metadata.schema(), describe)
            : RewriteSortOrder.of(metadata, describe);
      } else {
        throw new IllegalArgumentException(describe + ": unknown strategy '" + strategy
            + "' (valid: binpack, sort)");
      }
    } catch (IllegalArgumentException | FloeException e) {
      throw SparkExceptions.thrown("", e, ErrorClass.FLOE_PROCEDURE_ARGUMENT_INVALID);
    }
    SparkSession spark = SparkSession.active();
    String quoted = quoted(ident);
    PhaseLog progress = PhaseLog.start(NAME, table);
    Planned planned = plan(spark, ops, quoted, optionalString(args, 4), describe);
    List<FileGroupPlanner.FileGroup> groups = new FileGroupPlanner(options).plan(planned.tasks());
    progress.phase("planned " + groups.size() + " file groups: "
        + groups.stream().mapToInt(g -> g.tasks().size()).sum() + " of " + planned.tasks().size()
        + " candidate files, " + groups.stream().mapToLong(FileGroupPlanner.FileGroup::bytes).sum()
        + " bytes to rewrite (" + strategy + ")");
    Counts counts = new Counts();
    if (!groups.isEmpty()) {
      String registryName = catalog().name() + "." + ops.tableName();
      FileGroupRewriter rewriter = new FileGroupRewriter(spark, quoted, registryName, options, sortColumns);
      List<FileGroupRewriter.Written> written = rewriteAll(spark, rewriter, groups, options, ops);
      progress.phase("rewrote " + groups.size() + " file groups into "
          + written.stream().mapToInt(w -> w.files().size()).sum() + " files");
      CommitGate.pass(table);
      commit(ops, table, planned.snapshot(), groups, written, options, counts, describe);
      progress.phase("committed " + counts.rewritten + " rewritten and " + counts.added + " added data files, "
          + counts.removedDeletes + " delete files removed, " + counts.failed + " files failed");
    }
    return result(OUTPUT, new GenericInternalRow(new Object[] {
        counts.rewritten, counts.added, counts.bytes, counts.failed, counts.removedDeletes}));
  }

  private static Map<String, String> optionsArg(InternalRow args, int ordinal) {
    Map<String, String> out = new LinkedHashMap<>();
    if (args.isNullAt(ordinal)) {
      return out;
    }
    MapData map = args.getMap(ordinal);
    for (int i = 0; i < map.numElements(); i++) {
      out.put(map.keyArray().getUTF8String(i).toString(),
          map.valueArray().isNullAt(i) ? null : map.valueArray().getUTF8String(i).toString());
    }
    return out;
  }

  /**
   * The live files of the current snapshot and their deletes; with {@code where}, those the read of
   * {@code SELECT * FROM table WHERE <where>} plans (files that may hold a matching row). A
   * condition that cannot select files (nothing of it converts to a file filter) is an error.
   */
  private Planned plan(SparkSession spark, FileSystemTableOperations ops, String quoted, String where,
      String describe) {
    if (where == null || where.isBlank()) {
      TableMetadata metadata = ops.refresh();
      if (metadata.currentSnapshot() == null) {
        return new Planned(null, List.of());
      }
      return new Planned(metadata.currentSnapshot(), TableScan.of(ops.io(), metadata).planFiles().tasks());
    }
    LogicalPlan optimized = spark.read().table(quoted).filter(where).queryExecution().optimizedPlan();
    List<LogicalPlan> nodes = new ArrayList<>();
    collect(optimized, nodes);
    FloeScan scan = null;
    boolean filtered = false;
    for (LogicalPlan node : nodes) {
      if (node instanceof DataSourceV2ScanRelation relation && relation.scan() instanceof FloeScan floeScan) {
        scan = floeScan;
      }
      filtered |= node instanceof Filter;
    }
    if (scan == null) {
      return new Planned(null, List.of()); // the condition is always false
    }
    Expression pushed = scan.filterExpression();
    if (filtered && pushed.op() == Expression.Operation.TRUE) {
      throw argumentError("where", describe + ": the where condition '" + where + "' cannot select files (it "
          + "converts to no partition or column-bounds filter); use conditions on table columns such as id > 10");
    }
    Snapshot snapshot = scan.snapshotId() == null ? null : ops.refresh().snapshot(scan.snapshotId());
    return new Planned(snapshot, snapshot == null ? List.of() : scan.tasks());
  }

  private static void collect(LogicalPlan plan, List<LogicalPlan> out) {
    out.add(plan);
    scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      collect(children.next(), out);
    }
  }

  /** Rewrites the groups, up to max-concurrent-file-group-rewrites at a time; on failure deletes what was written. */
  private List<FileGroupRewriter.Written> rewriteAll(SparkSession spark, FileGroupRewriter rewriter,
      List<FileGroupPlanner.FileGroup> groups, RewriteOptions options, FileSystemTableOperations ops) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(groups.size(), options.maxConcurrentGroups()),
        r -> {
          Thread t = new Thread(r, "floe-rewrite");
          t.setDaemon(true);
          return t;
        });
    List<Future<FileGroupRewriter.Written>> futures = new ArrayList<>();
    for (FileGroupPlanner.FileGroup group : groups) {
      futures.add(pool.submit(() -> {
        SparkSession.setActiveSession(spark);
        return rewriter.rewrite(group);
      }));
    }
    List<FileGroupRewriter.Written> written = new ArrayList<>();
    RuntimeException failure = null;
    try {
      for (Future<FileGroupRewriter.Written> f : futures) {
        try {
          written.add(f.get());
        } catch (ExecutionException e) {
          written.add(FileGroupRewriter.Written.NONE);
          if (failure == null) {
            failure = e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failure = new IllegalStateException("Interrupted while rewriting files", e);
        }
      }
    } finally {
      pool.shutdown();
    }
    if (failure != null) {
      written.forEach(w -> deleteWritten(ops, w.files()));
      throw failure;
    }
    return written;
  }

  /**
   * Commits the rewritten groups: all in one snapshot, or with partial progress in up to
   * partial-progress.max-commits snapshots, where a failed commit only fails its own groups. Each
   * commit adds its new files to the table's sync indexes ({@link IndexSync}) from the values the
   * writers gathered, so compacted files stay covered without reading them again.
   */
  private void commit(FileSystemTableOperations ops, String table, Snapshot start,
      List<FileGroupPlanner.FileGroup> groups, List<FileGroupRewriter.Written> written, RewriteOptions options,
      Counts counts, String describe) {
    int batches = options.partialProgress() ? Math.min(groups.size(), options.partialProgressMaxCommits()) : 1;
    int perBatch = (groups.size() + batches - 1) / batches;
    for (int from = 0; from < groups.size(); from += perBatch) {
      int to = Math.min(groups.size(), from + perBatch);
      RewriteFiles rewrite = new RewriteFiles(ops).validateFromSnapshot(start.snapshotId());
      if (options.useStartingSequenceNumber()) {
        rewrite.dataSequenceNumber(start.sequenceNumber());
      }
      int files = 0;
      long bytes = 0;
      List<DataFile> added = new ArrayList<>();
      Map<Integer, List<FileValues>> indexValues = new HashMap<>();
      for (int i = from; i < to; i++) {
        for (FileScanTask task : groups.get(i).tasks()) {
          rewrite.rewriteFile(task.file());
          files += 1;
        }
        bytes += groups.get(i).bytes();
        added.addAll(written.get(i).files());
        written.get(i).indexValues().forEach((fieldId, values) ->
            indexValues.computeIfAbsent(fieldId, k -> new ArrayList<>()).addAll(values));
      }
      added.forEach(rewrite::addFile);
      if (!indexValues.isEmpty()) {
        rewrite.amendMetadata(new IndexSync(ops.io(), table, ops.metadataRoot() + "/metadata", indexValues));
      }
      rewrite.validateAddedFilesExist(); // the groups' write markers are gone: orphan removal may have run
      try {
        Snapshot committed = rewrite.commit();
        counts.rewritten += files;
        counts.added += added.size();
        counts.bytes += bytes;
        counts.removedDeletes += Integer.parseInt(committed.summary().getOrDefault("removed-delete-files", "0"));
      } catch (ValidationException e) {
        deleteWritten(ops, added);
        if (!options.partialProgress()) {
          throw SparkExceptions.thrown(FloeException.reworded(e, ErrorClass.FLOE_PROCEDURE_REFUSED,
              describe + ": " + e.getMessage() + ". Nothing was committed"));
        }
        counts.failed += files;
      } catch (RuntimeException e) {
        if (!(e instanceof io.floe.format.commit.CommitStateUnknownException)) {
          deleteWritten(ops, added);
        }
        if (!options.partialProgress()) {
          throw e;
        }
        counts.failed += files;
      }
    }
  }

  /** Deletes files a rewrite wrote but did not commit (only inside the table's location). */
  private static void deleteWritten(FileSystemTableOperations ops, List<DataFile> files) {
    String root = ops.current().location();
    for (DataFile f : files) {
      try {
        Locations.checkInside(root, f.path(), "rewritten data file");
        ops.io().deleteFile(f.path());
      } catch (Exception ignored) {
        // best effort: an uncommitted file is an orphan that remove_orphan_files finds
      }
    }
  }
}
