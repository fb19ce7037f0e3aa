package io.floe.spark.stats;

import io.floe.format.SnapshotErrors;
import io.floe.format.commit.ManageSnapshots;
import io.floe.format.commit.TableOperations;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.DataOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.stats.StatisticsFileReader;
import io.floe.format.stats.StatisticsFileWriter;
import io.floe.format.stats.ThetaSketches;
import io.floe.format.types.Schema;
import io.floe.spark.util.FileSetRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.Sketch;
import org.apache.datasketches.theta.Union;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes the statistics file of one snapshot of a Floe table (theta sketches of its columns) and
 * writes it; the caller registers it in the metadata. Full: one pass over the snapshot. Incremental:
 * when an ancestor snapshot has a statistics file covering the columns and every snapshot since is
 * an append or a replace (compaction: same live rows), that file's sketches are merged with sketches
 * of only the data files the appends added since (read in the driver when they are few rows, see
 * {@link LocalSketch}; else by a Spark job over exactly those files).
 */
public final class TableStatistics {
  private static final Logger LOG = LoggerFactory.getLogger(TableStatistics.class);

  private TableStatistics() {}

  /** What a run produced: the written file, and how many data files were added since its base (-1: full). */
  public record Result(StatisticsFile file, long baseSnapshotId, int filesSketched) {
    public boolean incremental() {
      return baseSnapshotId >= 0;
    }
  }

  /** The table being analyzed: its operations, its name in messages, how SQL names it, its file-set name. */
  public record Target(TableOperations ops, String tableName, String quotedName, String fileSetName) {
  }

  /**
   * Sketches {@code columns} (null: every top-level primitive column) of snapshot {@code snapshotId}
   * (null: the current one) and writes the statistics file. Null when the table has no snapshot.
   * User errors (unknown snapshot or column, unsketchable type) are IllegalArgumentExceptions.
   */
  public static Result compute(SparkSession spark, Target target, Long snapshotId, List<String> columns) {
    TableMetadata metadata = target.ops().refresh();
    Snapshot snapshot = snapshotId == null ? metadata.currentSnapshot() : metadata.snapshot(snapshotId);
    if (snapshot == null) {
      if (snapshotId != null) {
        throw SnapshotErrors.snapshotNotFound(target.tableName(), String.valueOf(snapshotId),
            "Cannot compute statistics of table " + target.tableName() + ": snapshot " + snapshotId
                + " does not exist");
      }
      return null;
    }
    Schema schema = snapshot.schemaId() != null && metadata.schemasById().containsKey(snapshot.schemaId())
        ? metadata.schemasById().get(snapshot.schemaId()) : metadata.schema();
    List<SketchColumn> resolved = SketchColumn.resolve(schema, columns, target.tableName());
    Base base = findBase(metadata, snapshot, resolved, target);
    Map<Integer, CompactSketch> sketches;
    int filesSketched;
    if (base == null) {
      Dataset<Row> rows = spark.read().option("snapshot-id", Long.toString(snapshot.snapshotId()))
          .table(target.quotedName());
      sketches = TableSketchJob.run(rows, resolved);
      filesSketched = -1;
    } else {
      filesSketched = base.added().size();
      sketches = merge(base.sketches(), sketchAdded(spark, target, snapshot, schema, base.added(), resolved));
    }
    String location = StatisticsFileWriter.newLocation(target.ops(), snapshot.snapshotId());
    StatisticsFile file = StatisticsFileWriter.write(target.ops().io(), location, snapshot, sketches,
        StatisticsFileWriter.codec(metadata, target.tableName()));
    return new Result(file, base == null ? -1 : base.snapshotId(), filesSketched);
  }

  /**
   * Sketches of the data files added since the base, as parts to merge: none when there are none;
   * one per driver thread when they are few rows ({@link LocalSketch}); else the result of a Spark
   * job over exactly those files.
   */
  private static List<Map<Integer, Sketch>> sketchAdded(SparkSession spark, Target target,
      Snapshot snapshot, Schema schema, List<FileScanTask> added, List<SketchColumn> columns) {
    if (added.isEmpty()) {
      return List.of();
    }
    if (LocalSketch.limit(spark.conf()).admits(added, false)) {
      int batchSize = Integer.parseInt(spark.conf().get("spark.sql.parquet.columnarReaderBatchSize", "4096"));
      int threads = Math.min(spark.sparkContext().defaultParallelism(), Runtime.getRuntime().availableProcessors());
      return LocalSketch.run(added, schema, columns, spark.sessionState().newHadoopConf(), batchSize, threads,
          target.fileSetName(), snapshot.snapshotId());
    }
    return List.of(new LinkedHashMap<Integer, Sketch>(sketchFiles(spark, target, added, columns)));
  }

  private static Map<Integer, CompactSketch> sketchFiles(SparkSession spark, Target target, List<FileScanTask> added,
      List<SketchColumn> columns) {
    String id = FileSetRegistry.register(target.fileSetName(), added);
    try {
      return TableSketchJob.run(spark.read().option(FileSetRegistry.OPTION, id).table(target.quotedName()), columns);
    } finally {
      FileSetRegistry.remove(id);
    }
  }

  /** Each column's old sketch merged with its sketches in {@code parts}, in one union per column. */
  private static Map<Integer, CompactSketch> merge(Map<Integer, Sketch> old, List<Map<Integer, Sketch>> parts) {
    Map<Integer, CompactSketch> out = new LinkedHashMap<>();
    for (Map.Entry<Integer, Sketch> column : old.entrySet()) {
      Union union = ThetaSketches.newUnion();
      union.union(column.getValue());
      for (Map<Integer, Sketch> part : parts) {
        Sketch sketch = part.get(column.getKey());
        if (sketch != null) {
          union.union(sketch);
        }
      }
      out.put(column.getKey(), union.getResult());
    }
    return out;
  }

  /** An ancestor's sketches of the requested columns (in their order) and the data files added since. */
  private record Base(long snapshotId, Map<Integer, Sketch> sketches, List<FileScanTask> added) {
  }

  /**
   * The newest strict ancestor of {@code snapshot} with a statistics file covering {@code columns},
   * reached through appends and replaces only ({@code snapshot} itself included), or null: then a
   * full pass.
   */
  private static Base findBase(TableMetadata metadata, Snapshot snapshot, List<SketchColumn> columns, Target target) {
    List<Snapshot> appended = new ArrayList<>();
    for (Snapshot s : ManageSnapshots.ancestors(metadata, snapshot.snapshotId())) {
      if (s != snapshot) {
        StatisticsFile stats = statisticsOf(metadata, s.snapshotId());
        if (stats != null) {
          Map<Integer, Sketch> sketches = readCovering(target, stats, columns);
          if (sketches != null) {
            List<FileScanTask> added = addedFiles(target, metadata, appended);
            return added == null ? null : new Base(s.snapshotId(), sketches, added);
          }
        }
      }
      if (DataOperations.APPEND.equals(s.operation()) && s.manifestListLocation() != null) {
        appended.add(s);
      } else if (!DataOperations.REPLACE.equals(s.operation())) {
        return null; // rows deleted or overwritten: sketches cannot forget values
      } // a replace (compaction, manifest rewrite) keeps the live rows: nothing to add

    }
    return null;
  }

  private static StatisticsFile statisticsOf(TableMetadata metadata, long snapshotId) {
    for (StatisticsFile file : metadata.statisticsFiles()) {
      if (file.snapshotId() == snapshotId) {
        return file;
      }
    }
    return null;
  }

  /** The sketches of {@code columns} in {@code file}, or null when one is missing or the file is unreadable. */
  private static Map<Integer, Sketch> readCovering(Target target, StatisticsFile file, List<SketchColumn> columns) {
    Map<Integer, Sketch> all;
    try {
      all = StatisticsFileReader.thetaSketches(target.ops().io(), file);
    } catch (RuntimeException e) {
      LOG.warn("Cannot read statistics file {} of table {}; computing statistics in full", file.path(),
          target.tableName(), e);
      return null;
    }
    Map<Integer, Sketch> out = new LinkedHashMap<>();
    for (SketchColumn column : columns) {
      Sketch sketch = all.get(column.fieldId());
      if (sketch == null) {
        return null;
      }
      out.put(column.fieldId(), sketch);
    }
    return out;
  }

  /** The data files each of {@code snapshots} (appends) added, as scan tasks without deletes. */
  private static List<FileScanTask> addedFiles(Target target, TableMetadata metadata, List<Snapshot> snapshots) {
    List<FileScanTask> tasks = new ArrayList<>();
    for (Snapshot s : snapshots) {
      for (ManifestFile manifest : ManifestLists.read(target.ops().io().newInputFile(s.manifestListLocation()))) {
        if (manifest.content() != ManifestContent.DATA || manifest.snapshotId() == null
            || manifest.snapshotId() != s.snapshotId()) {
          continue;
        }
        for (ManifestEntry<DataFile> entry : ManifestReader.readData(target.ops().io().newInputFile(manifest.path()),
            manifest, metadata.specsById())) {
          if (entry.status() == ManifestEntry.Status.ADDED && entry.snapshotId() != null
              && entry.snapshotId() == s.snapshotId()) {
            long sequence = entry.dataSequenceNumber() != null ? entry.dataSequenceNumber() : s.sequenceNumber();
            tasks.add(new FileScanTask(entry.file(), List.of(), metadata.spec(entry.file().specId()), sequence));
          }
        }
      }
    }
    return tasks;
  }
}
