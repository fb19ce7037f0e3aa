package io.floe.format.manifest;

import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A content file listed in a manifest: a data file, a position delete file, a deletion vector or
 * an equality delete file (the spec's {@code data_file} struct). Immutable; build with
 * {@link #builder(PartitionSpec)}. Metric maps are never null (empty when unknown).
 */
public final class DataFile {
  private final FileContent content;
  private final String path;
  private final FileFormat format;
  private final int specId;
  private final PartitionData partition;
  private final long recordCount;
  private final long fileSizeInBytes;
  private final Metrics metrics;
  private final ByteBuffer keyMetadata;
  private final List<Long> splitOffsets;
  private final List<Integer> equalityFieldIds;
  private final Integer sortOrderId;
  private final Long firstRowId;
  private final String referencedDataFile;
  private final Long contentOffset;
  private final Long contentSizeInBytes;

  private DataFile(Builder b) {
    this.content = b.content;
    this.path = b.path;
    this.format = b.format;
    this.specId = b.specId;
    this.partition = b.partition;
    this.recordCount = b.recordCount;
    this.fileSizeInBytes = b.fileSizeInBytes;
    this.metrics = b.metrics;
    this.keyMetadata = b.keyMetadata == null ? null : b.keyMetadata.asReadOnlyBuffer();
    this.splitOffsets = b.splitOffsets == null ? null : List.copyOf(b.splitOffsets);
    this.equalityFieldIds = b.equalityFieldIds == null ? null : List.copyOf(b.equalityFieldIds);
    this.sortOrderId = b.sortOrderId;
    this.firstRowId = b.firstRowId;
    this.referencedDataFile = b.referencedDataFile;
    this.contentOffset = b.contentOffset;
    this.contentSizeInBytes = b.contentSizeInBytes;
  }

  public static Builder builder(PartitionSpec spec) {
    return new Builder(spec);
  }

  public FileContent content() {
    return content;
  }

  /** The file's full URI. */
  public String path() {
    return path;
  }

  public FileFormat format() {
    return format;
  }

  public int specId() {
    return specId;
  }

  public PartitionData partition() {
    return partition;
  }

  public long recordCount() {
    return recordCount;
  }

  public long fileSizeInBytes() {
    return fileSizeInBytes;
  }

  public Map<Integer, Long> columnSizes() {
    return metrics.columnSizes();
  }

  public Map<Integer, Long> valueCounts() {
    return metrics.valueCounts();
  }

  public Map<Integer, Long> nullValueCounts() {
    return metrics.nullValueCounts();
  }

  public Map<Integer, Long> nanValueCounts() {
    return metrics.nanValueCounts();
  }

  public Map<Integer, ByteBuffer> lowerBounds() {
    return metrics.lowerBounds();
  }

  public Map<Integer, ByteBuffer> upperBounds() {
    return metrics.upperBounds();
  }

  /** A read-only view of the key metadata, or null. */
  public ByteBuffer keyMetadata() {
    return keyMetadata == null ? null : keyMetadata.duplicate();
  }

  public List<Long> splitOffsets() {
    return splitOffsets;
  }

  public List<Integer> equalityFieldIds() {
    return equalityFieldIds;
  }

  public Integer sortOrderId() {
    return sortOrderId;
  }

  /** v3: the first row id of the file (explicit or inherited on read), or null. */
  public Long firstRowId() {
    return firstRowId;
  }

  public String referencedDataFile() {
    return referencedDataFile;
  }

  public Long contentOffset() {
    return contentOffset;
  }

  public Long contentSizeInBytes() {
    return contentSizeInBytes;
  }

  @Override
  public String toString() {
    return "DataFile{" + content + ", " + path + ", " + format + ", spec=" + specId + ", partition=" + partition
        + ", records=" + recordCount + ", bytes=" + fileSizeInBytes + "}";
  }

  /** Builds a {@link DataFile}; content defaults to DATA and the partition to the empty tuple. */
  public static final class Builder {
    private final PartitionSpec spec;
    private FileContent content = FileContent.DATA;
    private String path;
    private FileFormat format;
    private int specId;
    private PartitionData partition;
    private long recordCount = -1;
    private long fileSizeInBytes = -1;
    private Metrics metrics = Metrics.empty(-1);
    private ByteBuffer keyMetadata;
    private List<Long> splitOffsets;
    private List<Integer> equalityFieldIds;
    private Integer sortOrderId;
    private Long firstRowId;
    private String referencedDataFile;
    private Long contentOffset;
    private Long contentSizeInBytes;

    private Builder(PartitionSpec spec) {
      this.spec = spec;
      this.specId = spec == null ? 0 : spec.specId();
    }

    /** Copies every field of {@code file} (its spec id included). */
    public Builder copy(DataFile file) {
      this.content = file.content;
      this.path = file.path;
      this.format = file.format;
      this.specId = file.specId;
      this.partition = file.partition;
      this.recordCount = file.recordCount;
      this.fileSizeInBytes = file.fileSizeInBytes;
      this.metrics = file.metrics;
      this.keyMetadata = file.keyMetadata;
      this.splitOffsets = file.splitOffsets;
      this.equalityFieldIds = file.equalityFieldIds;
      this.sortOrderId = file.sortOrderId;
      this.firstRowId = file.firstRowId;
      this.referencedDataFile = file.referencedDataFile;
      this.contentOffset = file.contentOffset;
      this.contentSizeInBytes = file.contentSizeInBytes;
      return this;
    }

    public Builder withContent(FileContent newContent) {
      this.content = newContent;
      return this;
    }

    public Builder withPath(String newPath) {
      this.path = newPath;
      return this;
    }

    public Builder withFormat(FileFormat newFormat) {
      this.format = newFormat;
      return this;
    }

    public Builder withFormat(String newFormat) {
      this.format = FileFormat.fromString(newFormat);
      return this;
    }

    public Builder withPartition(PartitionData newPartition) {
      this.partition = newPartition;
      return this;
    }

    public Builder withRecordCount(long count) {
      this.recordCount = count;
      return this;
    }

    public Builder withFileSizeInBytes(long size) {
      this.fileSizeInBytes = size;
      return this;
    }

    /** Sets the column metrics; the record count too when the metrics carry one. */
    public Builder withMetrics(Metrics newMetrics) {
      this.metrics = newMetrics == null ? Metrics.empty(-1) : newMetrics;
      if (newMetrics != null && newMetrics.recordCount() != null && newMetrics.recordCount() >= 0) {
        this.recordCount = newMetrics.recordCount();
      }
      return this;
    }

    public Builder withKeyMetadata(ByteBuffer newKeyMetadata) {
      this.keyMetadata = newKeyMetadata;
      return this;
    }

    public Builder withSplitOffsets(List<Long> offsets) {
      this.splitOffsets = offsets;
      return this;
    }

    public Builder withEqualityFieldIds(List<Integer> ids) {
      this.equalityFieldIds = ids;
      return this;
    }

    public Builder withSortOrderId(Integer id) {
      this.sortOrderId = id;
      return this;
    }

    public Builder withFirstRowId(Long id) {
      this.firstRowId = id;
      return this;
    }

    public Builder withReferencedDataFile(String location) {
      this.referencedDataFile = location;
      return this;
    }

    public Builder withContentOffset(Long offset) {
      this.contentOffset = offset;
      return this;
    }

    public Builder withContentSizeInBytes(Long size) {
      this.contentSizeInBytes = size;
      return this;
    }

    public DataFile build() {
      check(path != null && !path.isEmpty(), "Invalid data file: path is required");
      check(format != null, "Invalid data file " + path + ": file format is required");
      check(content != null, "Invalid data file " + path + ": content is required");
      check(recordCount >= 0, "Invalid data file " + path + ": record count is required, found " + recordCount);
      check(fileSizeInBytes >= 0, "Invalid data file " + path + ": file size is required, found "
          + fileSizeInBytes);
      int expected = spec == null ? -1 : spec.fields().size();
      if (partition == null) {
        check(expected <= 0, "Invalid data file " + path + ": partition is required for spec " + spec);
        partition = PartitionData.empty();
      }
      check(expected < 0 || partition.size() == expected, "Invalid data file " + path + ": partition "
          + partition + " has " + partition.size() + " values, spec " + specId + " has " + expected + " fields");
      check(content != FileContent.EQUALITY_DELETES || (equalityFieldIds != null && !equalityFieldIds.isEmpty()),
          "Invalid equality delete file " + path + ": equality field ids are required");
      return new DataFile(this);
    }

    private static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }
}
