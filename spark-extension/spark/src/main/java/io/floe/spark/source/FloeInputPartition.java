package io.floe.spark.source;

import io.floe.format.FloeFormatException;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.scan.FileScanTask;
import io.floe.spark.util.SparkSchemas;
import java.io.Serializable;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.StructType;

/**
 * One data file, or one byte range of it (see {@link io.floe.format.scan.FileSplits}), to read on
 * an executor, with what is needed to apply its deletes.
 */
public final class FloeInputPartition implements InputPartition, Serializable {
  private final String path;
  private final long length;
  private final long recordCount;
  private final List<DeleteFileRef> deletes;
  private final int specId;
  private final InternalRow partition; // for the _partition metadata column; null when not read
  private final StructType equalitySchema; // columns of the equality deletes; null when none apply
  private final long splitStart;
  private final long splitLength; // -1: the whole file

  /**
   * A delete file the reader must apply to this data file; {@code equalityFieldIds} is null for
   * position deletes and deletion vectors. {@code fileSizeInBytes} is the manifest's length of the
   * whole file, with which it is opened without asking the file system for it.
   */
  public record DeleteFileRef(String path, int content, String format, long recordCount, Long contentOffset,
      Long contentSizeInBytes, List<Integer> equalityFieldIds, long fileSizeInBytes) implements Serializable {
    public DeleteFileRef {
      equalityFieldIds = equalityFieldIds == null ? null : List.copyOf(equalityFieldIds);
    }

    /** The reference to a delete file of the manifest. */
    public static DeleteFileRef of(DeleteFile d) {
      return new DeleteFileRef(d.path(), d.content().id(), d.format().name(), d.recordCount(), d.contentOffset(),
          d.contentSizeInBytes(), d.content() == FileContent.EQUALITY_DELETES ? d.equalityFieldIds() : null,
          d.fileSizeInBytes());
    }

    boolean isEquality() {
      return content == FileContent.EQUALITY_DELETES.id();
    }
  }

  private FloeInputPartition(String path, long length, long recordCount, List<DeleteFileRef> deletes, int specId,
      InternalRow partition, StructType equalitySchema, long splitStart, long splitLength) {
    this.splitStart = splitStart;
    this.splitLength = splitLength;
    this.equalitySchema = equalitySchema;
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
    List<DeleteFileRef> deletes = task.deletes().stream().map(DeleteFileRef::of).toList();
    Set<Integer> equalityIds = new LinkedHashSet<>();
    for (DeleteFileRef d : deletes) {
      if (d.isEquality()) {
        if (d.equalityFieldIds() == null || d.equalityFieldIds().isEmpty()) {
          throw new FloeFormatException("Invalid equality delete file " + d.path() + " (applies to " + f.path()
              + "): its manifest entry has no equality_ids");
        }
        equalityIds.addAll(d.equalityFieldIds());
      }
    }
    StructType equalitySchema = equalityIds.isEmpty() ? null : EqualityDeleteColumns.select(
        SparkSchemas.convert(task.spec().schema()), equalityIds, "the equality deletes of data file " + f.path());
    return new FloeInputPartition(f.path(), f.fileSizeInBytes(), f.recordCount(), deletes, f.specId(), partition,
        equalitySchema, 0, -1);
  }

  /** This file's bytes [start, start + length) only: the row groups whose midpoint is in it. */
  FloeInputPartition range(long start, long rangeLength) {
    if (start < 0 || rangeLength <= 0 || start + rangeLength > length) {
      throw new IllegalArgumentException("Invalid range of data file " + path + " (" + length + " bytes): start "
          + start + ", length " + rangeLength);
    }
    return new FloeInputPartition(path, length, recordCount, deletes, specId, partition, equalitySchema, start,
        rangeLength);
  }

  public String path() {
    return path;
  }

  /** The size of the whole data file in bytes. */
  public long length() {
    return length;
  }

  /** Where the range this partition reads starts (0 for the whole file). */
  public long splitStart() {
    return splitStart;
  }

  /** The length of the range this partition reads, or -1 for the whole file. */
  public long splitLength() {
    return splitLength;
  }

  /** The bytes this partition reads: its range, or the whole file. */
  long bytesRead() {
    return splitLength < 0 ? length : splitLength;
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

  /**
   * The table columns (current types, field ids) that this file's equality deletes compare, nested
   * ones inside structs pruned to them; null when no equality delete applies.
   */
  StructType equalitySchema() {
    return equalitySchema;
  }

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
