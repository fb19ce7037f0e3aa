package io.floe.spark.procedures;

import io.floe.format.index.FileValues;
import io.floe.format.maintenance.FileGroupPlanner;
import io.floe.format.maintenance.RewriteOptions;
import io.floe.format.manifest.DataFile;
import io.floe.spark.util.FileSetRegistry;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Rewrites one file group with Spark: reads exactly its files with their deletes applied (read
 * option {@link FileSetRegistry#OPTION}) and writes the rows into new files of the table's default
 * spec, staged rather than committed, with the values of the table's sync index columns the writers
 * gathered (docs/indexes.md, "Keeping it current"). Binpack keeps the rows' order and only combines (or, for a
 * file above the maximum size, splits) files; sort range-partitions the rows by the sort columns
 * and sorts each output file, so the files' key ranges do not overlap.
 */
final class FileGroupRewriter {
  private final SparkSession spark;
  private final String quotedTable;
  private final String tableName;
  private final RewriteOptions options;
  private final List<Column> sortColumns;

  /** {@code sortColumns}: null for binpack. */
  FileGroupRewriter(SparkSession spark, String quotedTable, String tableName, RewriteOptions options,
      List<Column> sortColumns) {
    this.spark = spark;
    this.quotedTable = quotedTable;
    this.tableName = tableName;
    this.options = options;
    this.sortColumns = sortColumns;
  }

  /** The files written for one group, and per indexed field id the values the writers gathered for them. */
  record Written(List<DataFile> files, Map<Integer, List<FileValues>> indexValues) {
    static final Written NONE = new Written(List.of(), Map.of());
  }

  /** The files written for {@code group}; on failure the written files are deleted by the write itself. */
  Written rewrite(FileGroupPlanner.FileGroup group) {
    String id = FileSetRegistry.register(tableName, group.tasks());
    try {
      Dataset<Row> rows = spark.read().option(FileSetRegistry.OPTION, id).table(quotedTable);
      int files = group.outputFiles();
      if (sortColumns != null) {
        Column[] cols = sortColumns.toArray(new Column[0]);
        rows = rows.repartitionByRange(files, cols).sortWithinPartitions(cols);
      } else if (files < group.tasks().size()) {
        rows = rows.coalesce(files);
      } else {
        rows = rows.repartition(files);
      }
      rows.writeTo(quotedTable)
          .option(FileSetRegistry.OPTION, id)
          .option("target-file-size-bytes", Long.toString(options.writerFileSize()))
          .append();
      return new Written(FileSetRegistry.written(id), FileSetRegistry.indexValues(id));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException("Cannot rewrite files of table " + tableName + ": it was dropped", e);
    } finally {
      FileSetRegistry.remove(id);
    }
  }
}
