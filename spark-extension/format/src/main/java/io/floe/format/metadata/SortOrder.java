package io.floe.format.metadata;

import io.floe.format.partition.Transform;
import io.floe.format.partition.Transforms;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A table sort order. Order id 0 is reserved for the unsorted order, which has no fields. */
public final class SortOrder {
  public static final int UNSORTED_ORDER_ID = 0;
  /** The id the first real sort order of a table gets. */
  public static final int INITIAL_SORT_ORDER_ID = 1;

  private static final SortOrder UNSORTED = new SortOrder(UNSORTED_ORDER_ID, List.of());

  private final int orderId;
  private final List<SortField> fields;

  public SortOrder(int orderId, List<SortField> fields) {
    this.orderId = orderId;
    this.fields = List.copyOf(fields);
    if (orderId == UNSORTED_ORDER_ID && !this.fields.isEmpty()) {
      throw new IllegalArgumentException("Invalid sort order: order id 0 is reserved for the unsorted order");
    }
    if (orderId != UNSORTED_ORDER_ID && this.fields.isEmpty()) {
      throw new IllegalArgumentException("Invalid sort order " + orderId + ": an unsorted order must have id 0");
    }
  }

  public static SortOrder unsorted() {
    return UNSORTED;
  }

  public static Builder builderFor(Schema schema) {
    return new Builder(schema);
  }

  public int orderId() {
    return orderId;
  }

  public List<SortField> fields() {
    return fields;
  }

  public boolean isUnsorted() {
    return fields.isEmpty();
  }

  public boolean isSorted() {
    return !fields.isEmpty();
  }

  /** True when both orders sort by the same fields, whatever their ids. */
  public boolean sameOrder(SortOrder other) {
    return fields.equals(other.fields);
  }

  public SortOrder withOrderId(int newOrderId) {
    return new SortOrder(newOrderId, fields);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SortOrder && orderId == ((SortOrder) o).orderId && sameOrder((SortOrder) o);
  }

  @Override
  public int hashCode() {
    return Objects.hash(orderId, fields);
  }

  @Override
  public String toString() {
    return "SortOrder{id=" + orderId + ", fields=" + fields + "}";
  }

  /**
   * Builds a sort order against a schema by column name. Ascending keys default to nulls first,
   * descending to nulls last. The order id defaults to 1 (0 when no field is added).
   */
  public static final class Builder {
    private final Schema schema;
    private final List<SortField> fields = new ArrayList<>();
    private Integer orderId;

    private Builder(Schema schema) {
      this.schema = schema;
    }

    public Builder withOrderId(int id) {
      this.orderId = id;
      return this;
    }

    public Builder asc(String name) {
      return asc(name, NullOrder.NULLS_FIRST);
    }

    public Builder asc(String name, NullOrder nullOrder) {
      return addSortField(Transforms.identity(), name, SortDirection.ASC, nullOrder);
    }

    public Builder desc(String name) {
      return desc(name, NullOrder.NULLS_LAST);
    }

    public Builder desc(String name, NullOrder nullOrder) {
      return addSortField(Transforms.identity(), name, SortDirection.DESC, nullOrder);
    }

    public Builder addSortField(Transform transform, String name, SortDirection direction, NullOrder nullOrder) {
      Types.NestedField source = schema.findField(name);
      if (source == null) {
        throw new IllegalArgumentException("Cannot find source column for sort field: " + name);
      }
      return addSortField(transform, source.fieldId(), direction, nullOrder);
    }

    public Builder addSortField(Transform transform, int sourceId, SortDirection direction, NullOrder nullOrder) {
      Types.NestedField source = schema.findField(sourceId);
      if (source != null && !transform.canTransform(source.type())) {
        throw new IllegalArgumentException("Invalid sort field: transform " + transform
            + " cannot be applied to column " + schema.findColumnName(sourceId) + " of type " + source.type());
      }
      fields.add(new SortField(transform, sourceId, direction, nullOrder));
      return this;
    }

    public SortOrder build() {
      if (fields.isEmpty() && (orderId == null || orderId == UNSORTED_ORDER_ID)) {
        return UNSORTED;
      }
      return new SortOrder(orderId == null ? INITIAL_SORT_ORDER_ID : orderId, fields);
    }
  }
}
