package io.floe.format.metadata;

import java.util.Objects;

/** A partition-statistics file registered for one snapshot in table metadata. */
public final class PartitionStatisticsFile {
  private final long snapshotId;
  private final String path;
  private final long fileSizeInBytes;

  public PartitionStatisticsFile(long snapshotId, String path, long fileSizeInBytes) {
    this.snapshotId = snapshotId;
    this.path = Objects.requireNonNull(path, "Partition statistics file path is null");
    this.fileSizeInBytes = fileSizeInBytes;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public String path() {
    return path;
  }

  public long fileSizeInBytes() {
    return fileSizeInBytes;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof PartitionStatisticsFile)) {
      return false;
    }
    PartitionStatisticsFile that = (PartitionStatisticsFile) o;
    return snapshotId == that.snapshotId && path.equals(that.path) && fileSizeInBytes == that.fileSizeInBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(snapshotId, path, fileSizeInBytes);
  }

  @Override
  public String toString() {
    return "PartitionStatisticsFile{snapshot=" + snapshotId + ", path=" + path + "}";
  }
}
