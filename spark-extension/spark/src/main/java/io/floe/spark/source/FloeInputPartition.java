package io.floe.spark.source;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.scan.FileScanTask;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;

/** One data file to read on an executor, with what is needed to apply its deletes. */
public final class FloeInputPartition implements InputPartition, Serializable {
  private final String path;
  private final long length;
  private final long recordCount;
  private final List<DeleteFileRef> deletes;
  private final int specId;
  private final InternalRow partition; // for the _partition metadata column; null when not read

  /** A delete file the reader must apply to this data file. */
  public record DeleteFileRef(String path, int content, String format, long recordCount, Long contentOffset,
      Long contentSizeInBytes) implements Serializable {
  }

  private FloeInputPartition(String path, long length, long recordCount, List<DeleteFileRef> deletes, int specId,
      InternalRow partition) {
    this.specId = specId;
    this.partition = partition;
    this.path = path;
    this.length = length;
    this.recordCount = recordCount;
    this.deletes = deletes;
  }

  static FloeInputPartition of(FileScanTask task) {
    return of(task, null);
  }

  /** {@code partition}: the file's partition tuple as a Catalyst row for {@code _partition}, or null. */
  static FloeInputPartition of(FileScanTask task, InternalRow partition) {
    DataFile f = task.file();
    if (f.format() != FileFormat.PARQUET) {
      throw new UnsupportedOperationException("Cannot read data file " + f.path() + ": format " + f.format()
          + " is not supported (Floe reads Parquet data files)");
    }
    List<DeleteFileRef> deletes = task.deletes().stream()
        .map(d -> new DeleteFileRef(d.path(), d.content().id(), d.format().name(), d.recordCount(),
            d.contentOffset(), d.contentSizeInBytes()))
        .toList();
    return new FloeInputPartition(f.path(), f.fileSizeInBytes(), f.recordCount(), deletes, f.specId(), partition);
  }

  public String path() {
    return path;
  }

  public long length() {
    return length;
  }

  public long recordCount() {
    return recordCount;
  }

  public int specId() {
    return specId;
  }

  public InternalRow partition() {
    return partition;
  }

  public List<DeleteFileRef> deletes() {
    return deletes;
  }

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
