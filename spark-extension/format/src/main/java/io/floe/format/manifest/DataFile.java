package io.floe.format.manifest;

import io.floe.format.partition.PartitionSpec;

/**
 * A data file listed in a data manifest (content {@link FileContent#DATA}). Immutable; build with
 * {@link #builder(PartitionSpec)}. Delete files are {@link DeleteFile}s, so one cannot be passed where
 * the other is expected.
 */
public final class DataFile extends ContentFile {
  private final Long firstRowId;

  private DataFile(Builder b) {
    super(b);
    this.firstRowId = b.firstRowId;
  }

  public static Builder builder(PartitionSpec spec) {
    return new Builder(spec);
  }

  /** v3: the first row id of the file (explicit or inherited on read), or null. */
  public Long firstRowId() {
    return firstRowId;
  }

  /** Builds a {@link DataFile}; the partition defaults to the empty tuple. */
  public static final class Builder extends ContentFile.Builder<Builder> {
    private Long firstRowId;

    private Builder(PartitionSpec spec) {
      super(spec, FileContent.DATA);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Copies every field of {@code file} (its spec id included). */
    public Builder copy(DataFile file) {
      this.firstRowId = file.firstRowId;
      return copyShared(file);
    }

    public Builder withFirstRowId(Long id) {
      this.firstRowId = id;
      return this;
    }

    public DataFile build() {
      checkShared("data file");
      return new DataFile(this);
    }
  }
}
