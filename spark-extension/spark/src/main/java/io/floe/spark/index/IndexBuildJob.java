package io.floe.spark.index;

import io.floe.format.index.FileValues;
import io.floe.format.index.IndexLocations;
import io.floe.format.index.IndexSegment;
import io.floe.format.index.IndexSegmentWriter;
import io.floe.format.index.TableIndex;
import io.floe.format.io.FileIO;
import io.floe.format.metadata.Snapshot;
import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Type;
import io.floe.spark.util.FileSetRegistry;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;

/**
 * Builds index segments for data files with a distributed Spark job: every file is read as written
 * (its deletes are not applied, since an index entry is a fact about the file, docs/indexes.md),
 * one task per file through the rewrite read path ({@link FileSetRegistry}), and each task gathers
 * its file's distinct values of the index column and whether it holds a null ({@link GatheredValues}). Files are indexed in
 * groups of {@link #FILES_PER_SEGMENT}, one segment per group, so that a segment stays small enough
 * to build in the driver's memory.
 */
final class IndexBuildJob {
  static final int FILES_PER_SEGMENT = 1000;

  /** The table being indexed: how Spark names it, its FileIO and its metadata folder. */
  record Target(String tableName, String quotedName, FileIO io, String metadataFolder) {
  }

  private IndexBuildJob() {}

  /**
   * Segments of {@code index} (no segments yet) for {@code tasks}, built at {@code snapshot};
   * {@code columnSql} is the index column as SQL names it ({@code `a`.`b`}).
   */
  static List<IndexSegment> build(SparkSession spark, Target target, TableIndex index, Type keyType,
      String columnSql, Snapshot snapshot, List<FileScanTask> tasks) {
    List<IndexSegment> segments = new ArrayList<>();
    try {
      for (int from = 0; from < tasks.size(); from += FILES_PER_SEGMENT) {
        List<FileScanTask> group = tasks.subList(from, Math.min(tasks.size(), from + FILES_PER_SEGMENT));
        segments.add(buildSegment(spark, target, index, keyType, columnSql, snapshot, group));
      }
      return segments;
    } catch (RuntimeException e) {
      IndexFiles.deleteQuietly(target.io(), segments);
      throw e;
    }
  }

  private static IndexSegment buildSegment(SparkSession spark, Target target, TableIndex index, Type keyType,
      String columnSql, Snapshot snapshot, List<FileScanTask> group) {
    List<FileScanTask> raw = new ArrayList<>(group.size());
    for (FileScanTask task : group) {
      raw.add(new FileScanTask(task.file(), List.of(), task.spec(), task.dataSequenceNumber()));
    }
    GatheredValues[] byTask = new GatheredValues[raw.size()];
    String id = FileSetRegistry.register(target.tableName(), raw);
    try {
      // one Spark task per file; each gathers its file's distinct values (sorted, unboxed for
      // integral columns) and null flag itself, so the build needs no shuffle
      Dataset<Row> column = spark.read().option(FileSetRegistry.OPTION, id).table(target.quotedName())
          .select(functions.expr(columnSql).as("v"));
      DataType type = column.schema().apply("v").dataType();
      List<GatheredValues> gathered = column.queryExecution().toRdd().toJavaRDD()
          .mapPartitionsWithIndex(new GatheredValues.Gather(type), false).collect();
      for (GatheredValues file : gathered) {
        byTask[file.task()] = file;
      }
    } finally {
      FileSetRegistry.remove(id);
    }
    IndexSegmentWriter writer = IndexSegmentWriter.builder(index.type(), index.sourceFieldId(), keyType)
        .snapshot(snapshot.snapshotId(), snapshot.sequenceNumber()).build();
    for (int i = 0; i < raw.size(); i++) {
      String path = raw.get(i).file().path();
      if (byTask[i] == null) {
        writer.add(FileValues.of(path, List.of())); // a file that yielded no task holds no value: covered with none
      } else {
        byTask[i].addTo(writer, path);
      }
    }
    return writer.write(target.io().newOutputFile(IndexLocations.newSegment(target.metadataFolder(), index.name())));
  }
}
