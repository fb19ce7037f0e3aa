package io.floe.format.manifest;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * A manifest as listed in a manifest list (record {@code manifest_file}). Immutable. A manifest that
 * has just been written has sequence numbers {@link #UNASSIGNED_SEQ}; {@link ManifestLists#write}
 * assigns the commit's. File and row counts are null only in old (v1) lists that omitted them.
 */
public final class ManifestFile {
  /** Sequence number of a manifest that no manifest list has recorded yet. */
  public static final long UNASSIGNED_SEQ = -1L;

  private final String path;
  private final long length;
  private final int partitionSpecId;
  private final ManifestContent content;
  private final long sequenceNumber;
  private final long minSequenceNumber;
  private final Long snapshotId;
  private final Integer addedFilesCount;
  private final Integer existingFilesCount;
  private final Integer deletedFilesCount;
  private final Long addedRowsCount;
  private final Long existingRowsCount;
  private final Long deletedRowsCount;
  private final List<PartitionFieldSummary> partitions;
  private final ByteBuffer keyMetadata;
  private final Long firstRowId;

  private ManifestFile(Builder b) {
    this.path = Objects.requireNonNull(b.path, "Manifest path is null");
    this.length = b.length;
    this.partitionSpecId = b.partitionSpecId;
    this.content = Objects.requireNonNull(b.content, "Manifest content is null");
    this.sequenceNumber = b.sequenceNumber;
    this.minSequenceNumber = b.minSequenceNumber;
    this.snapshotId = b.snapshotId;
    this.addedFilesCount = b.addedFilesCount;
    this.existingFilesCount = b.existingFilesCount;
    this.deletedFilesCount = b.deletedFilesCount;
    this.addedRowsCount = b.addedRowsCount;
    this.existingRowsCount = b.existingRowsCount;
    this.deletedRowsCount = b.deletedRowsCount;
    this.partitions = b.partitions == null ? null : List.copyOf(b.partitions);
    this.keyMetadata = b.keyMetadata == null ? null : b.keyMetadata.asReadOnlyBuffer();
    this.firstRowId = b.firstRowId;
  }

  public static Builder builder(String path) {
    return new Builder(path);
  }

  public Builder toBuilder() {
    return new Builder(path).copy(this);
  }

  public String path() {
    return path;
  }

  public long length() {
    return length;
  }

  public int partitionSpecId() {
    return partitionSpecId;
  }

  public ManifestContent content() {
    return content;
  }

  /** The sequence number of the commit that added the manifest, or {@link #UNASSIGNED_SEQ}. */
  public long sequenceNumber() {
    return sequenceNumber;
  }

  /** The lowest data sequence number of the manifest's live files, or {@link #UNASSIGNED_SEQ}. */
  public long minSequenceNumber() {
    return minSequenceNumber;
  }

  /** The snapshot that added the manifest ({@code added_snapshot_id}); null before a list records it. */
  public Long snapshotId() {
    return snapshotId;
  }

  public Integer addedFilesCount() {
    return addedFilesCount;
  }

  public Integer existingFilesCount() {
    return existingFilesCount;
  }

  public Integer deletedFilesCount() {
    return deletedFilesCount;
  }

  public Long addedRowsCount() {
    return addedRowsCount;
  }

  public Long existingRowsCount() {
    return existingRowsCount;
  }

  public Long deletedRowsCount() {
    return deletedRowsCount;
  }

  /** True unless the count is known to be 0. */
  public boolean hasAddedFiles() {
    return addedFilesCount == null || addedFilesCount > 0;
  }

  public boolean hasExistingFiles() {
    return existingFilesCount == null || existingFilesCount > 0;
  }

  public boolean hasDeletedFiles() {
    return deletedFilesCount == null || deletedFilesCount > 0;
  }

  /** One summary per partition field, in spec order, or null when the writer recorded none. */
  public List<PartitionFieldSummary> partitions() {
    return partitions;
  }

  public ByteBuffer keyMetadata() {
    return keyMetadata == null ? null : keyMetadata.duplicate();
  }

  /** v3 data manifests: the first row id assigned to the manifest's files, or null. */
  public Long firstRowId() {
    return firstRowId;
  }

  public ManifestFile withSequenceNumbers(long seq, long minSeq) {
    return toBuilder().withSequenceNumber(seq).withMinSequenceNumber(minSeq).build();
  }

  public ManifestFile withFirstRowId(Long id) {
    return toBuilder().withFirstRowId(id).build();
  }

  /** The same manifest at another location (its copy after a move). */
  public ManifestFile withPath(String newPath) {
    return new Builder(newPath).copy(this).build();
  }

  public ManifestFile withSnapshotId(Long id) {
    return toBuilder().withSnapshotId(id).build();
  }

  @Override
  public String toString() {
    return "ManifestFile{" + path + ", " + content + ", spec=" + partitionSpecId + ", seq=" + sequenceNumber
        + ", minSeq=" + minSequenceNumber + ", snapshot=" + snapshotId + ", added=" + addedFilesCount
        + ", existing=" + existingFilesCount + ", deleted=" + deletedFilesCount + ", firstRowId=" + firstRowId + "}";
  }

  /** Builds a {@link ManifestFile}; sequence numbers default to unassigned, content to DATA. */
  public static final class Builder {
    private String path;
    private long length;
    private int partitionSpecId;
    private ManifestContent content = ManifestContent.DATA;
    private long sequenceNumber = UNASSIGNED_SEQ;
    private long minSequenceNumber = UNASSIGNED_SEQ;
    private Long snapshotId;
    private Integer addedFilesCount;
    private Integer existingFilesCount;
    private Integer deletedFilesCount;
    private Long addedRowsCount;
    private Long existingRowsCount;
    private Long deletedRowsCount;
    private List<PartitionFieldSummary> partitions;
    private ByteBuffer keyMetadata;
    private Long firstRowId;

    private Builder(String path) {
      this.path = path;
    }

    private Builder copy(ManifestFile m) {
      this.length = m.length;
      this.partitionSpecId = m.partitionSpecId;
      this.content = m.content;
      this.sequenceNumber = m.sequenceNumber;
      this.minSequenceNumber = m.minSequenceNumber;
      this.snapshotId = m.snapshotId;
      this.addedFilesCount = m.addedFilesCount;
      this.existingFilesCount = m.existingFilesCount;
      this.deletedFilesCount = m.deletedFilesCount;
      this.addedRowsCount = m.addedRowsCount;
      this.existingRowsCount = m.existingRowsCount;
      this.deletedRowsCount = m.deletedRowsCount;
      this.partitions = m.partitions;
      this.keyMetadata = m.keyMetadata;
      this.firstRowId = m.firstRowId;
      return this;
    }

    public Builder withLength(long newLength) {
      this.length = newLength;
      return this;
    }

    public Builder withPartitionSpecId(int specId) {
      this.partitionSpecId = specId;
      return this;
    }

    public Builder withContent(ManifestContent newContent) {
      this.content = newContent;
      return this;
    }

    public Builder withSequenceNumber(long seq) {
      this.sequenceNumber = seq;
      return this;
    }

    public Builder withMinSequenceNumber(long minSeq) {
      this.minSequenceNumber = minSeq;
      return this;
    }

    public Builder withSnapshotId(Long id) {
      this.snapshotId = id;
      return this;
    }

    public Builder withAddedFiles(Integer files, Long rows) {
      this.addedFilesCount = files;
      this.addedRowsCount = rows;
      return this;
    }

    public Builder withExistingFiles(Integer files, Long rows) {
      this.existingFilesCount = files;
      this.existingRowsCount = rows;
      return this;
    }

    public Builder withDeletedFiles(Integer files, Long rows) {
      this.deletedFilesCount = files;
      this.deletedRowsCount = rows;
      return this;
    }

    public Builder withPartitions(List<PartitionFieldSummary> summaries) {
      this.partitions = summaries;
      return this;
    }

    public Builder withKeyMetadata(ByteBuffer newKeyMetadata) {
      this.keyMetadata = newKeyMetadata;
      return this;
    }

    public Builder withFirstRowId(Long id) {
      this.firstRowId = id;
      return this;
    }

    public ManifestFile build() {
      return new ManifestFile(this);
    }
  }
}
