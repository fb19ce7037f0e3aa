package io.floe.format.partition;

import java.util.Objects;

/** One field of a partition spec: source column id, partition field id, name and transform. */
public final class PartitionField {
  private final int sourceId;
  private final int fieldId;
  private final String name;
  private final Transform transform;

  public PartitionField(int sourceId, int fieldId, String name, Transform transform) {
    this.sourceId = sourceId;
    this.fieldId = fieldId;
    this.name = Objects.requireNonNull(name, "Partition field name is null");
    this.transform = Objects.requireNonNull(transform, "Partition transform is null");
  }

  public int sourceId() {
    return sourceId;
  }

  public int fieldId() {
    return fieldId;
  }

  public String name() {
    return name;
  }

  public Transform transform() {
    return transform;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof PartitionField)) {
      return false;
    }
    PartitionField that = (PartitionField) o;
    return sourceId == that.sourceId && fieldId == that.fieldId && name.equals(that.name)
        && transform.toString().equals(that.transform.toString());
  }

  @Override
  public int hashCode() {
    return Objects.hash(sourceId, fieldId, name, transform.toString());
  }

  @Override
  public String toString() {
    return fieldId + ": " + name + ": " + transform + "(" + sourceId + ")";
  }
}
