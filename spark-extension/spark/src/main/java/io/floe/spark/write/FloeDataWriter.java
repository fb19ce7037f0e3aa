package io.floe.spark.write;

import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * Writes one task's rows into Parquet files. The clustered writer (normal writes) keeps one open
 * file at a time and starts a new one when the partition changes (rows arrive clustered by
 * partition) or the file reaches the target size. The {@link #fanout fanout} writer keeps one open
 * file per partition, so rows may arrive in any order (row-level operations, whose rows are not
 * sorted by partition).
 */
final class FloeDataWriter implements DataWriter<InternalRow> {
  private final Schema schema;
  private final StructType rowType;
  private final PartitionSpec spec;
  private final PartitionKeys keys;
  private final String dataLocation;
  private final Configuration conf;
  private final Map<String, String> properties;
  private final long targetFileSize;
  private final String fileNamePrefix;
  private final String operationId;
  private final boolean fanout;
  private final IndexedColumns indexedColumns;
  private final List<WrittenFile> completed = new ArrayList<>();
  private final List<String> started = new ArrayList<>();
  /** Open files by partition: at most one entry unless {@link #fanout}. */
  private final Map<PartitionData, OpenFile> open = new HashMap<>();
  /** The clustered writer's open file (also in {@link #open}). */
  private OpenFile current = null;
  private int fileCount = 0;
  private static final int SIZE_CHECK_ROWS = 1000;

  /** A file being written, and the rows written since its size was last checked. */
  private static final class OpenFile {
    final FloeParquetWriter writer;
    final String path;
    final PartitionData partition;
    final FileValueCollector indexValues;
    int rowsSinceSizeCheck = 0;

    OpenFile(FloeParquetWriter writer, String path, PartitionData partition, FileValueCollector indexValues) {
      this.writer = writer;
      this.path = path;
      this.partition = partition;
      this.indexValues = indexValues;
    }
  }

  FloeDataWriter(Schema schema, StructType rowType, PartitionSpec spec, String dataLocation, Configuration conf,
      Map<String, String> properties, int partitionId, long taskId, String operationId,
      IndexedColumns indexedColumns) {
    this(schema, rowType, spec, dataLocation, conf, properties, partitionId, taskId, operationId, false,
        indexedColumns);
  }

  private FloeDataWriter(Schema schema, StructType rowType, PartitionSpec spec, String dataLocation,
      Configuration conf, Map<String, String> properties, int partitionId, long taskId, String operationId,
      boolean fanout, IndexedColumns indexedColumns) {
    this.schema = schema;
    this.rowType = rowType;
    this.spec = spec;
    this.keys = new PartitionKeys(spec, schema, rowType);
    this.dataLocation = dataLocation;
    this.conf = conf;
    this.properties = properties;
    this.targetFileSize = TableProperties.longValue(properties, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES);
    this.fileNamePrefix = String.format("%05d-%d-%s-", partitionId, taskId, operationId);
    this.operationId = operationId;
    this.fanout = fanout;
    this.indexedColumns = indexedColumns;
  }

  /**
   * A writer that keeps one open file per partition, so rows need not arrive clustered by
   * partition. Each open file buffers a row group in memory: use it where a task's rows span few
   * partitions or cannot be sorted cheaply. Same files, names and marker protocol as the clustered
   * writer.
   */
  static FloeDataWriter fanout(Schema schema, StructType rowType, PartitionSpec spec, String dataLocation,
      Configuration conf, Map<String, String> properties, int partitionId, long taskId, String operationId,
      IndexedColumns indexedColumns) {
    return new FloeDataWriter(schema, rowType, spec, dataLocation, conf, properties, partitionId, taskId,
        operationId, true, indexedColumns);
  }

  @Override
  public void write(InternalRow row) throws IOException {
    PartitionData partition = keys.isUnpartitioned() ? PartitionData.empty() : PartitionData.wrap(keys.partition(row));
    OpenFile file;
    if (fanout) {
      file = open.get(partition);
      if (file != null && reachedTargetSize(file)) {
        closeFile(file);
        file = null;
      }
    } else {
      file = current;
      if (file != null && (!partition.equals(file.partition) || reachedTargetSize(file))) {
        closeFile(file);
        file = null;
      }
    }
    if (file == null) {
      file = open(partition);
    }
    file.writer.write(row);
    if (file.indexValues != null) {
      file.indexValues.add(row);
    }
  }

  /** The buffered size costs a pass over every column, so it is checked once per {@value #SIZE_CHECK_ROWS} rows. */
  private boolean reachedTargetSize(OpenFile file) {
    file.rowsSinceSizeCheck += 1;
    if (file.rowsSinceSizeCheck < SIZE_CHECK_ROWS) {
      return false;
    }
    file.rowsSinceSizeCheck = 0;
    return file.writer.length() >= targetFileSize;
  }

  private OpenFile open(PartitionData partition) {
    fileCount += 1;
    String dir = keys.isUnpartitioned() ? dataLocation : dataLocation + "/" + spec.partitionToPath(partition.toArray());
    String path = dir + "/" + fileNamePrefix + String.format("%05d", fileCount) + ".parquet";
    started.add(path);
    OpenFile file = new OpenFile(new FloeParquetWriter(schema, rowType, path, conf, properties), path, partition,
        indexedColumns.isEmpty() ? null : new FileValueCollector(indexedColumns));
    open.put(partition, file);
    current = file;
    return file;
  }

  private void closeFile(OpenFile file) throws IOException {
    open.remove(file.partition);
    if (current == file) {
      current = null;
    }
    file.writer.close();
    long size = file.writer.length();
    if (file.writer.metrics().recordCount() > 0) {
      completed.add(WrittenFile.of(file.path, size, spec.specId(), file.partition.toArray(), file.writer.metrics(),
          file.writer.splitOffsets(), file.indexValues == null ? Map.of() : file.indexValues.gathered()));
    } else {
      deleteQuietly(file.path);
    }
  }

  private void closeAll() throws IOException {
    for (OpenFile file : new ArrayList<>(open.values())) {
      closeFile(file);
    }
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    closeAll();
    // A task that finishes after its job failed must not report files: the driver has given up on
    // the write and will never commit them. Throwing here makes Spark call abort(), which deletes them.
    TaskContext context = TaskContext.get();
    if (context != null) {
      context.killTaskIfInterrupted();
    }
    Path marker = new Path(FloeBatchWrite.writeMarker(dataLocation, operationId));
    if (!marker.getFileSystem(conf).exists(marker)) {
      throw new IOException("Write " + operationId + " to " + dataLocation + " was aborted: its marker " + marker
          + " is gone (the write failed elsewhere, or the table was dropped meanwhile); discarding "
          + completed.size() + " files of this task");
    }
    return new FloeCommitMessage(List.copyOf(completed));
  }

  @Override
  public void abort() {
    for (OpenFile file : open.values()) {
      try {
        file.writer.close();
      } catch (IOException | RuntimeException ignored) {
        // the file is deleted below
      }
    }
    open.clear();
    current = null;
    started.forEach(this::deleteQuietly);
    removeEmptyDirectoriesOfAbortedWrite();
  }

  /**
   * A task that outlives its failed write (Spark cancels running tasks only after the driver has
   * aborted the write) may have re-created directories that the abort had already removed, for a
   * failed CREATE TABLE AS SELECT the table's own folder. When the write's marker is gone, the
   * directories this task wrote into are removed again up to the table's folder, if empty.
   */
  private void removeEmptyDirectoriesOfAbortedWrite() {
    try {
      Path marker = new Path(FloeBatchWrite.writeMarker(dataLocation, operationId));
      FileSystem fs = marker.getFileSystem(conf);
      if (started.isEmpty() || fs.exists(marker)) {
        return;
      }
      Path stop = new Path(dataLocation).getParent();
      Set<Path> dirs = new TreeSet<>(Comparator.comparingInt(Path::depth).reversed().thenComparing(Path::toString));
      for (String location : started) {
        for (Path dir = new Path(location).getParent(); dir != null && dir.depth() >= stop.depth();
            dir = dir.getParent()) {
          dirs.add(dir);
        }
      }
      for (Path dir : dirs) {
        FileStatus[] children = fs.exists(dir) ? fs.listStatus(dir) : null;
        if (children != null && children.length == 0) {
          fs.delete(dir, false);
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // best effort: an empty directory is all that can be left
    }
  }

  private void deleteQuietly(String location) {
    try {
      Path p = new Path(location);
      p.getFileSystem(conf).delete(p, false);
    } catch (IOException | UncheckedIOException ignored) {
      // best effort
    }
  }

  @Override
  public void close() throws IOException {
    if (!open.isEmpty()) {
      abort();
    }
  }
}
