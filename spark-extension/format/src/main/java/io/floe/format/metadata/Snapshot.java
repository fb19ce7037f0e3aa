package io.floe.format.metadata;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The state of a table at one commit. Immutable; build with {@link #builder()}.
 *
 * <p>{@link #summary()} holds every summary key except {@code operation}, which is {@link #operation()}.
 * v3 row lineage: {@link #firstRowId()} and {@link #addedRows()}, null for snapshots written before v3.
 */
public final class Snapshot {
  private final long snapshotId;
  private final Long parentId;
  private final long sequenceNumber;
  private final long timestampMillis;
  private final String manifestListLocation;
  private final List<String> v1ManifestLocations;
  private final String operation;
  private final Map<String, String> summary;
  private final Integer schemaId;
  private final Long firstRowId;
  private final Long addedRows;
  private final String keyId;

  private Snapshot(Builder b) {
    this.snapshotId = b.snapshotId;
    this.parentId = b.parentId;
    this.sequenceNumber = b.sequenceNumber;
    this.timestampMillis = b.timestampMillis;
    this.manifestListLocation = b.manifestListLocation;
    this.v1ManifestLocations = b.v1ManifestLocations == null ? null : List.copyOf(b.v1ManifestLocations);
    this.operation = Objects.requireNonNull(b.operation, "Snapshot operation is null");
    Map<String, String> copy = new LinkedHashMap<>(b.summary);
    copy.remove(SnapshotParser.OPERATION);
    this.summary = Collections.unmodifiableMap(copy);
    this.schemaId = b.schemaId;
    this.firstRowId = b.firstRowId;
    this.addedRows = b.addedRows;
    this.keyId = b.keyId;
    if (sequenceNumber < 0) {
      throw new IllegalArgumentException("Invalid snapshot " + snapshotId + ": negative sequence number "
          + sequenceNumber);
    }
    if (manifestListLocation == null && v1ManifestLocations == null) {
      throw new IllegalArgumentException("Invalid snapshot " + snapshotId + ": manifest list location is null");
    }
    if (addedRows != null && addedRows < 0) {
      throw new IllegalArgumentException("Invalid snapshot " + snapshotId + ": negative added-rows " + addedRows);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** This snapshot with another manifest list (e.g. after the table's files moved). */
  public Snapshot withManifestListLocation(String location) {
    return builder().copy(this).manifestListLocation(location).v1ManifestLocations(null).build();
  }

  public long snapshotId() {
    return snapshotId;
  }

  /** The parent snapshot id, or null for the first snapshot; may name a snapshot that has expired. */
  public Long parentId() {
    return parentId;
  }

  public long sequenceNumber() {
    return sequenceNumber;
  }

  public long timestampMillis() {
    return timestampMillis;
  }

  /** The manifest list's full URI; null only for v1 snapshots that embed a manifest list. */
  public String manifestListLocation() {
    return manifestListLocation;
  }

  /** v1 only: manifest locations embedded in the snapshot instead of a manifest list; usually null. */
  public List<String> v1ManifestLocations() {
    return v1ManifestLocations;
  }

  public String operation() {
    return operation;
  }

  /** Summary entries other than {@code operation}, in file order. */
  public Map<String, String> summary() {
    return summary;
  }

  public Integer schemaId() {
    return schemaId;
  }

  public Long firstRowId() {
    return firstRowId;
  }

  public Long addedRows() {
    return addedRows;
  }

  /** Encryption key id (v3), null when not encrypted. */
  public String keyId() {
    return keyId;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Snapshot)) {
      return false;
    }
    Snapshot that = (Snapshot) o;
    return snapshotId == that.snapshotId && sequenceNumber == that.sequenceNumber
        && timestampMillis == that.timestampMillis && Objects.equals(parentId, that.parentId)
        && Objects.equals(manifestListLocation, that.manifestListLocation)
        && Objects.equals(v1ManifestLocations, that.v1ManifestLocations)
        && operation.equals(that.operation) && summary.equals(that.summary)
        && Objects.equals(schemaId, that.schemaId) && Objects.equals(firstRowId, that.firstRowId)
        && Objects.equals(addedRows, that.addedRows) && Objects.equals(keyId, that.keyId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(snapshotId, sequenceNumber, timestampMillis, manifestListLocation);
  }

  @Override
  public String toString() {
    return "Snapshot{id=" + snapshotId + ", parent=" + parentId + ", seq=" + sequenceNumber
        + ", operation=" + operation + ", manifest-list=" + manifestListLocation + "}";
  }

  /** Builds a snapshot. Required: snapshot id, timestamp, manifest list, operation. */
  public static final class Builder {
    private long snapshotId;
    private Long parentId;
    private long sequenceNumber;
    private long timestampMillis;
    private String manifestListLocation;
    private List<String> v1ManifestLocations;
    private String operation;
    private Map<String, String> summary = new LinkedHashMap<>();
    private Integer schemaId;
    private Long firstRowId;
    private Long addedRows;
    private String keyId;

    private Builder() {}

    /** Starts from every field of {@code snapshot} (e.g. to reassign the first row id on retry). */
    public Builder copy(Snapshot snapshot) {
      this.snapshotId = snapshot.snapshotId;
      this.parentId = snapshot.parentId;
      this.sequenceNumber = snapshot.sequenceNumber;
      this.timestampMillis = snapshot.timestampMillis;
      this.manifestListLocation = snapshot.manifestListLocation;
      this.v1ManifestLocations = snapshot.v1ManifestLocations;
      this.operation = snapshot.operation;
      this.summary = new LinkedHashMap<>(snapshot.summary);
      this.schemaId = snapshot.schemaId;
      this.firstRowId = snapshot.firstRowId;
      this.addedRows = snapshot.addedRows;
      this.keyId = snapshot.keyId;
      return this;
    }

    public Builder snapshotId(long id) {
      this.snapshotId = id;
      return this;
    }

    public Builder parentId(Long id) {
      this.parentId = id;
      return this;
    }

    public Builder sequenceNumber(long seq) {
      this.sequenceNumber = seq;
      return this;
    }

    public Builder timestampMillis(long millis) {
      this.timestampMillis = millis;
      return this;
    }

    public Builder manifestListLocation(String location) {
      this.manifestListLocation = location;
      return this;
    }

    public Builder v1ManifestLocations(List<String> locations) {
      this.v1ManifestLocations = locations;
      return this;
    }

    public Builder operation(String op) {
      this.operation = op;
      return this;
    }

    /** Replaces the summary; an {@code operation} key in it sets the operation unless one was set. */
    public Builder summary(Map<String, String> newSummary) {
      this.summary = new LinkedHashMap<>(newSummary);
      String op = summary.get(SnapshotParser.OPERATION);
      if (operation == null && op != null) {
        this.operation = op;
      }
      return this;
    }

    public Builder schemaId(Integer id) {
      this.schemaId = id;
      return this;
    }

    public Builder firstRowId(Long id) {
      this.firstRowId = id;
      return this;
    }

    public Builder addedRows(Long rows) {
      this.addedRows = rows;
      return this;
    }

    public Builder keyId(String id) {
      this.keyId = id;
      return this;
    }

    public Snapshot build() {
      return new Snapshot(this);
    }
  }
}
