package io.floe.format.manifest;

import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A file listed in a manifest (the spec's {@code data_file} struct): either a {@link DataFile} or a
 * {@link DeleteFile} (position deletes, deletion vector or equality deletes). This class holds the
 * fields both share; the subclasses add their own. Immutable. Metric maps are never null (empty when
 * unknown).
 */
public abstract sealed class ContentFile permits DataFile, DeleteFile {
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
  private final Integer sortOrderId;

  ContentFile(Builder<?> b) {
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
    this.sortOrderId = b.sortOrderId;
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

  public Integer sortOrderId() {
    return sortOrderId;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + content + ", " + path + ", " + format + ", spec=" + specId
        + ", partition=" + partition + ", records=" + recordCount + ", bytes=" + fileSizeInBytes + "}";
  }

  /** The fields every content file has; the partition defaults to the empty tuple. */
  public abstract static sealed class Builder<B extends Builder<B>> permits DataFile.Builder, DeleteFile.Builder {
    private final PartitionSpec spec;
    private FileContent content;
    private String path;
    private FileFormat format;
    private int specId;
    private PartitionData partition;
    private long recordCount = -1;
    private long fileSizeInBytes = -1;
    private Metrics metrics = Metrics.empty(-1);
    private ByteBuffer keyMetadata;
    private List<Long> splitOffsets;
    private Integer sortOrderId;

    Builder(PartitionSpec spec, FileContent content) {
      this.spec = spec;
      this.specId = spec == null ? 0 : spec.specId();
      this.content = content;
    }

    abstract B self();

    /** Copies the shared fields of {@code file} (its spec id included). */
    B copyShared(ContentFile file) {
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
      this.sortOrderId = file.sortOrderId;
      return self();
    }

    void setContent(FileContent newContent) {
      this.content = newContent;
    }

    FileContent content() {
      return content;
    }

    String path() {
      return path;
    }

    public B withPath(String newPath) {
      this.path = newPath;
      return self();
    }

    public B withFormat(FileFormat newFormat) {
      this.format = newFormat;
      return self();
    }

    public B withFormat(String newFormat) {
      this.format = FileFormat.fromString(newFormat);
      return self();
    }

    public B withPartition(PartitionData newPartition) {
      this.partition = newPartition;
      return self();
    }

    public B withRecordCount(long count) {
      this.recordCount = count;
      return self();
    }

    public B withFileSizeInBytes(long size) {
      this.fileSizeInBytes = size;
      return self();
    }

    /** Sets the column metrics; the record count too when the metrics carry one. */
    public B withMetrics(Metrics newMetrics) {
      this.metrics = newMetrics == null ? Metrics.empty(-1) : newMetrics;
      if (newMetrics != null && newMetrics.recordCount() != null && newMetrics.recordCount() >= 0) {
        this.recordCount = newMetrics.recordCount();
      }
      return self();
    }

    public B withKeyMetadata(ByteBuffer newKeyMetadata) {
      this.keyMetadata = newKeyMetadata;
      return self();
    }

    public B withSplitOffsets(List<Long> offsets) {
      this.splitOffsets = offsets;
      return self();
    }

    public B withSortOrderId(Integer id) {
      this.sortOrderId = id;
      return self();
    }

    /** Checks the shared fields (and defaults an unpartitioned file's partition); {@code kind} names the file. */
    void checkShared(String kind) {
      // messages are built only on failure: a manifest read checks every entry it decodes
      if (path == null || path.isEmpty()) {
        check(false, "Invalid " + kind + ": path is required");
      }
      if (format == null) {
        check(false, "Invalid " + kind + " " + path + ": file format is required");
      }
      if (content == null) {
        check(false, "Invalid " + kind + " " + path + ": content is required");
      }
      if (recordCount < 0) {
        check(false, "Invalid " + kind + " " + path + ": record count is required, found " + recordCount);
      }
      if (fileSizeInBytes < 0) {
        check(false, "Invalid " + kind + " " + path + ": file size is required, found " + fileSizeInBytes);
      }
      int expected = spec == null ? -1 : spec.fields().size();
      if (partition == null) {
        if (expected > 0) {
          check(false, "Invalid " + kind + " " + path + ": partition is required for spec " + spec);
        }
        partition = PartitionData.empty();
      }
      if (expected >= 0 && partition.size() != expected) {
        check(false, "Invalid " + kind + " " + path + ": partition " + partition + " has " + partition.size()
            + " values, spec " + specId + " has " + expected + " fields");
      }
    }

    static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }
}
