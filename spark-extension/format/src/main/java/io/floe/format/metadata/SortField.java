package io.floe.format.metadata;

import io.floe.format.partition.Transform;
import java.util.Objects;

/** One sort key: a transform of a source column, a direction and a null order. */
public final class SortField {
  private final Transform transform;
  private final int sourceId;
  private final SortDirection direction;
  private final NullOrder nullOrder;

  public SortField(Transform transform, int sourceId, SortDirection direction, NullOrder nullOrder) {
    this.transform = Objects.requireNonNull(transform, "Sort transform is null");
    this.sourceId = sourceId;
    this.direction = Objects.requireNonNull(direction, "Sort direction is null");
    this.nullOrder = Objects.requireNonNull(nullOrder, "Null order is null");
  }

  public Transform transform() {
    return transform;
  }

  public int sourceId() {
    return sourceId;
  }

  public SortDirection direction() {
    return direction;
  }

  public NullOrder nullOrder() {
    return nullOrder;
  }

  /** The same sort key on another source column id. */
  public SortField withSourceId(int newSourceId) {
    return new SortField(transform, newSourceId, direction, nullOrder);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SortField)) {
      return false;
    }
    SortField that = (SortField) o;
    return sourceId == that.sourceId && direction == that.direction && nullOrder == that.nullOrder
        && transform.toString().equals(that.transform.toString());
  }

  @Override
  public int hashCode() {
    return Objects.hash(transform.toString(), sourceId, direction, nullOrder);
  }

  @Override
  public String toString() {
    return transform + "(" + sourceId + ") " + direction.jsonName() + " " + nullOrder.jsonName();
  }
}
