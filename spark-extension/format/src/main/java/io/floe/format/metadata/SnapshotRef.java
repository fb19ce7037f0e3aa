package io.floe.format.metadata;

import java.util.Objects;

/**
 * A named reference to a snapshot: a branch (moves with commits) or a tag (fixed), with optional
 * retention settings. Retention fields are null when not set; tags only carry {@code maxRefAgeMs}.
 */
public final class SnapshotRef {
  public static final String MAIN_BRANCH = "main";

  private final long snapshotId;
  private final SnapshotRefType type;
  private final Integer minSnapshotsToKeep;
  private final Long maxSnapshotAgeMs;
  private final Long maxRefAgeMs;

  private SnapshotRef(long snapshotId, SnapshotRefType type, Integer minSnapshotsToKeep,
      Long maxSnapshotAgeMs, Long maxRefAgeMs) {
    this.snapshotId = snapshotId;
    this.type = Objects.requireNonNull(type, "Snapshot ref type is null");
    this.minSnapshotsToKeep = minSnapshotsToKeep;
    this.maxSnapshotAgeMs = maxSnapshotAgeMs;
    this.maxRefAgeMs = maxRefAgeMs;
    if (type == SnapshotRefType.TAG && (minSnapshotsToKeep != null || maxSnapshotAgeMs != null)) {
      throw new IllegalArgumentException(
          "Invalid tag: min-snapshots-to-keep and max-snapshot-age-ms apply to branches only");
    }
    checkPositive("min-snapshots-to-keep", minSnapshotsToKeep);
    checkPositive("max-snapshot-age-ms", maxSnapshotAgeMs);
    checkPositive("max-ref-age-ms", maxRefAgeMs);
  }

  private static void checkPositive(String name, Number value) {
    if (value != null && value.longValue() <= 0) {
      throw new IllegalArgumentException("Invalid snapshot ref " + name + ": must be positive, got " + value);
    }
  }

  public static SnapshotRef branch(long snapshotId) {
    return new SnapshotRef(snapshotId, SnapshotRefType.BRANCH, null, null, null);
  }

  public static SnapshotRef tag(long snapshotId) {
    return new SnapshotRef(snapshotId, SnapshotRefType.TAG, null, null, null);
  }

  public static Builder builderFor(long snapshotId, SnapshotRefType type) {
    return new Builder(snapshotId, type);
  }

  /** A builder starting from this ref, e.g. to move a branch while keeping its retention. */
  public Builder toBuilder() {
    return new Builder(snapshotId, type).minSnapshotsToKeep(minSnapshotsToKeep)
        .maxSnapshotAgeMs(maxSnapshotAgeMs).maxRefAgeMs(maxRefAgeMs);
  }

  public long snapshotId() {
    return snapshotId;
  }

  public SnapshotRefType type() {
    return type;
  }

  public boolean isBranch() {
    return type == SnapshotRefType.BRANCH;
  }

  public boolean isTag() {
    return type == SnapshotRefType.TAG;
  }

  public Integer minSnapshotsToKeep() {
    return minSnapshotsToKeep;
  }

  public Long maxSnapshotAgeMs() {
    return maxSnapshotAgeMs;
  }

  public Long maxRefAgeMs() {
    return maxRefAgeMs;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SnapshotRef)) {
      return false;
    }
    SnapshotRef that = (SnapshotRef) o;
    return snapshotId == that.snapshotId && type == that.type
        && Objects.equals(minSnapshotsToKeep, that.minSnapshotsToKeep)
        && Objects.equals(maxSnapshotAgeMs, that.maxSnapshotAgeMs)
        && Objects.equals(maxRefAgeMs, that.maxRefAgeMs);
  }

  @Override
  public int hashCode() {
    return Objects.hash(snapshotId, type, minSnapshotsToKeep, maxSnapshotAgeMs, maxRefAgeMs);
  }

  @Override
  public String toString() {
    return type.jsonName() + "(" + snapshotId + ")";
  }

  /** Builds a ref; unset retention fields stay null (table defaults apply). */
  public static final class Builder {
    private long snapshotId;
    private final SnapshotRefType type;
    private Integer minSnapshotsToKeep;
    private Long maxSnapshotAgeMs;
    private Long maxRefAgeMs;

    private Builder(long snapshotId, SnapshotRefType type) {
      this.snapshotId = snapshotId;
      this.type = type;
    }

    public Builder snapshotId(long id) {
      this.snapshotId = id;
      return this;
    }

    public Builder minSnapshotsToKeep(Integer value) {
      this.minSnapshotsToKeep = value;
      return this;
    }

    public Builder maxSnapshotAgeMs(Long value) {
      this.maxSnapshotAgeMs = value;
      return this;
    }

    public Builder maxRefAgeMs(Long value) {
      this.maxRefAgeMs = value;
      return this;
    }

    public SnapshotRef build() {
      return new SnapshotRef(snapshotId, type, minSnapshotsToKeep, maxSnapshotAgeMs, maxRefAgeMs);
    }
  }
}
