package io.floe.format.manifest;

import io.floe.format.partition.PartitionSpec;
import java.util.List;

/**
 * A delete file listed in a delete manifest: position deletes ({@link FileContent#POSITION_DELETES},
 * a Parquet file or, in a Puffin file, a deletion vector) or equality deletes
 * ({@link FileContent#EQUALITY_DELETES}). Immutable; build with {@link #builder(PartitionSpec)} and
 * {@link Builder#withContent}.
 */
public final class DeleteFile extends ContentFile {
  private final List<Integer> equalityFieldIds;
  private final String referencedDataFile;
  private final Long contentOffset;
  private final Long contentSizeInBytes;

  private DeleteFile(Builder b) {
    super(b);
    this.equalityFieldIds = b.equalityFieldIds == null ? null : List.copyOf(b.equalityFieldIds);
    this.referencedDataFile = b.referencedDataFile;
    this.contentOffset = b.contentOffset;
    this.contentSizeInBytes = b.contentSizeInBytes;
  }

  public static Builder builder(PartitionSpec spec) {
    return new Builder(spec);
  }

  /** The field ids an equality delete file matches rows on; null for position deletes. */
  public List<Integer> equalityFieldIds() {
    return equalityFieldIds;
  }

  /** The data file the deletes apply to when they apply to one only (required for deletion vectors), or null. */
  public String referencedDataFile() {
    return referencedDataFile;
  }

  /** v3: the offset of a deletion vector's blob in its Puffin file, or null. */
  public Long contentOffset() {
    return contentOffset;
  }

  /** v3: the length of a deletion vector's blob, or null. */
  public Long contentSizeInBytes() {
    return contentSizeInBytes;
  }

  /** Builds a {@link DeleteFile}; the content must be set and be a delete content. */
  public static final class Builder extends ContentFile.Builder<Builder> {
    private List<Integer> equalityFieldIds;
    private String referencedDataFile;
    private Long contentOffset;
    private Long contentSizeInBytes;

    private Builder(PartitionSpec spec) {
      super(spec, null);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Copies every field of {@code file} (its spec id included). */
    public Builder copy(DeleteFile file) {
      this.equalityFieldIds = file.equalityFieldIds;
      this.referencedDataFile = file.referencedDataFile;
      this.contentOffset = file.contentOffset;
      this.contentSizeInBytes = file.contentSizeInBytes;
      return copyShared(file);
    }

    /** POSITION_DELETES or EQUALITY_DELETES; DATA is refused (a data file is a {@link DataFile}). */
    public Builder withContent(FileContent newContent) {
      check(newContent != FileContent.DATA, "Invalid delete file " + (path() == null ? "" : path() + " ")
          + "content: DATA (build a data file with DataFile.builder)");
      setContent(newContent);
      return this;
    }

    public Builder withEqualityFieldIds(List<Integer> ids) {
      this.equalityFieldIds = ids;
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

    public DeleteFile build() {
      checkShared("delete file");
      check(content() != FileContent.EQUALITY_DELETES || (equalityFieldIds != null && !equalityFieldIds.isEmpty()),
          "Invalid equality delete file " + path() + ": equality field ids are required");
      return new DeleteFile(this);
    }
  }
}
