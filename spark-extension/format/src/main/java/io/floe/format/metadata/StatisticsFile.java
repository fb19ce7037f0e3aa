package io.floe.format.metadata;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/** A Puffin table-statistics file registered for one snapshot in table metadata. */
public final class StatisticsFile {
  private final long snapshotId;
  private final String path;
  private final long fileSizeInBytes;
  private final long fileFooterSizeInBytes;
  private final ByteBuffer keyMetadata;
  private final List<StatisticsBlobMetadata> blobMetadata;

  public StatisticsFile(long snapshotId, String path, long fileSizeInBytes, long fileFooterSizeInBytes,
      ByteBuffer keyMetadata, List<StatisticsBlobMetadata> blobMetadata) {
    this.snapshotId = snapshotId;
    this.path = Objects.requireNonNull(path, "Statistics file path is null");
    this.fileSizeInBytes = fileSizeInBytes;
    this.fileFooterSizeInBytes = fileFooterSizeInBytes;
    this.keyMetadata = keyMetadata == null ? null : keyMetadata.asReadOnlyBuffer();
    this.blobMetadata = List.copyOf(blobMetadata);
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

  public long fileFooterSizeInBytes() {
    return fileFooterSizeInBytes;
  }

  /** Encryption key metadata, or null; a read-only view. */
  public ByteBuffer keyMetadata() {
    return keyMetadata == null ? null : keyMetadata.duplicate();
  }

  public List<StatisticsBlobMetadata> blobMetadata() {
    return blobMetadata;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof StatisticsFile)) {
      return false;
    }
    StatisticsFile that = (StatisticsFile) o;
    return snapshotId == that.snapshotId && path.equals(that.path) && fileSizeInBytes == that.fileSizeInBytes
        && fileFooterSizeInBytes == that.fileFooterSizeInBytes && Objects.equals(keyMetadata, that.keyMetadata)
        && blobMetadata.equals(that.blobMetadata);
  }

  @Override
  public int hashCode() {
    return Objects.hash(snapshotId, path, fileSizeInBytes);
  }

  @Override
  public String toString() {
    return "StatisticsFile{snapshot=" + snapshotId + ", path=" + path + ", blobs=" + blobMetadata.size() + "}";
  }
}
