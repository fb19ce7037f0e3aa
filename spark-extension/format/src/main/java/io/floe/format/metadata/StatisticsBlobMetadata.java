package io.floe.format.metadata;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A blob of a Puffin statistics file as listed in table metadata: its type, the snapshot and
 * sequence number it was computed from, the field ids it covers and its properties (e.g. {@code ndv}).
 * Not to be confused with {@link io.floe.format.puffin.BlobMetadata}, a blob as a Puffin footer lists it.
 */
public final class StatisticsBlobMetadata {
  private final String type;
  private final long sourceSnapshotId;
  private final long sourceSnapshotSequenceNumber;
  private final List<Integer> fields;
  private final Map<String, String> properties;

  public StatisticsBlobMetadata(String type, long sourceSnapshotId, long sourceSnapshotSequenceNumber,
      List<Integer> fields, Map<String, String> properties) {
    this.type = Objects.requireNonNull(type, "Blob type is null");
    this.sourceSnapshotId = sourceSnapshotId;
    this.sourceSnapshotSequenceNumber = sourceSnapshotSequenceNumber;
    this.fields = List.copyOf(fields);
    this.properties = properties == null ? Map.of()
        : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  public String type() {
    return type;
  }

  public long sourceSnapshotId() {
    return sourceSnapshotId;
  }

  public long sourceSnapshotSequenceNumber() {
    return sourceSnapshotSequenceNumber;
  }

  public List<Integer> fields() {
    return fields;
  }

  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof StatisticsBlobMetadata)) {
      return false;
    }
    StatisticsBlobMetadata that = (StatisticsBlobMetadata) o;
    return type.equals(that.type) && sourceSnapshotId == that.sourceSnapshotId
        && sourceSnapshotSequenceNumber == that.sourceSnapshotSequenceNumber
        && fields.equals(that.fields) && properties.equals(that.properties);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, sourceSnapshotId, sourceSnapshotSequenceNumber, fields, properties);
  }

  @Override
  public String toString() {
    return "StatisticsBlobMetadata{type=" + type + ", snapshot=" + sourceSnapshotId + ", fields=" + fields + "}";
  }
}
