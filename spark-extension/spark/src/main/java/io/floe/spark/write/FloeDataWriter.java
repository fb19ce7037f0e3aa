package io.floe.spark.write;

import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * Writes one task's rows into Parquet files: one open file at a time, a new file when the partition
 * changes (rows arrive clustered by partition) or the file reaches the target size.
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
  private final List<WrittenFile> completed = new ArrayList<>();
  private final List<String> started = new ArrayList<>();
  private FloeParquetWriter current = null;
  private String currentPath = null;
  private PartitionData currentPartition = null;
  private int fileCount = 0;
  private static final int SIZE_CHECK_ROWS = 1000;
  private int rowsSinceSizeCheck = 0;

  FloeDataWriter(Schema schema, StructType rowType, PartitionSpec spec, String dataLocation, Configuration conf,
      Map<String, String> properties, int partitionId, long taskId, String operationId) {
    this.schema = schema;
    this.rowType = rowType;
    this.spec = spec;
    this.keys = new PartitionKeys(spec, schema, rowType);
    this.dataLocation = dataLocation;
    this.conf = conf;
    this.properties = properties;
    this.targetFileSize = Long.parseLong(properties.getOrDefault("write.target-file-size-bytes", "536870912"));
    this.fileNamePrefix = String.format("%05d-%d-%s-", partitionId, taskId, operationId);
    this.operationId = operationId;
  }

  @Override
  public void write(InternalRow row) throws IOException {
    PartitionData partition = keys.isUnpartitioned() ? PartitionData.empty() : PartitionData.wrap(keys.partition(row));
    if (current != null && (!partition.equals(currentPartition) || reachedTargetSize())) {
      closeCurrent();
    }
    if (current == null) {
      open(partition);
    }
    current.write(row);
  }

  /** The buffered size costs a pass over every column, so it is checked once per {@value #SIZE_CHECK_ROWS} rows. */
  private boolean reachedTargetSize() {
    rowsSinceSizeCheck += 1;
    if (rowsSinceSizeCheck < SIZE_CHECK_ROWS) {
      return false;
    }
    rowsSinceSizeCheck = 0;
    return current.length() >= targetFileSize;
  }

  private void open(PartitionData partition) {
    fileCount += 1;
    String dir = keys.isUnpartitioned() ? dataLocation : dataLocation + "/" + spec.partitionToPath(partition.toArray());
    currentPath = dir + "/" + fileNamePrefix + String.format("%05d", fileCount) + ".parquet";
    started.add(currentPath);
    current = new FloeParquetWriter(schema, rowType, currentPath, conf, properties);
    rowsSinceSizeCheck = 0;
    currentPartition = partition;
  }

  private void closeCurrent() throws IOException {
    current.close();
    long size = current.length();
    if (current.metrics().recordCount() > 0) {
      completed.add(WrittenFile.of(currentPath, size, spec.specId(), currentPartition.toArray(), current.metrics(),
          current.splitOffsets()));
    } else {
      deleteQuietly(currentPath);
    }
    current = null;
    currentPath = null;
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    if (current != null) {
      closeCurrent();
    }
    // A task that finishes after its job failed must not report files: the driver has given up on
    // the write and will never commit them. Throwing here makes Spark call abort(), which deletes them.
    TaskContext context = TaskContext.get();
    if (context != null) {
      context.killTaskIfInterrupted();
    }
    Path marker = new Path(FloeBatchWrite.writeMarker(dataLocation, operationId));
    if (!marker.getFileSystem(conf).exists(marker)) {
      throw new IOException("Write " + operationId + " was aborted (" + marker + " is gone): discarding "
          + completed.size() + " files of this task");
    }
    return new FloeCommitMessage(List.copyOf(completed));
  }

  @Override
  public void abort() {
    try {
      if (current != null) {
        current.close();
      }
    } catch (IOException | RuntimeException ignored) {
      // the file is deleted below
    }
    current = null;
    started.forEach(this::deleteQuietly);
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
    if (current != null) {
      abort();
    }
  }
}
