package io.floe.format.partition;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A partition tuple: one value per partition field, in spec order, in Floe's Java value
 * representation. Immutable; equal tuples have equal values (byte buffers by content).
 */
public final class PartitionData {
  private static final PartitionData EMPTY = new PartitionData(new Object[0]);

  private final Object[] values;

  private PartitionData(Object[] values) {
    this.values = values;
  }

  public static PartitionData empty() {
    return EMPTY;
  }

  public static PartitionData of(Object... values) {
    return values.length == 0 ? EMPTY : new PartitionData(values.clone());
  }

  /**
   * Takes ownership of {@code values} without copying: for hot paths that build a fresh array per
   * row and never touch it again.
   */
  public static PartitionData wrap(Object[] values) {
    return values.length == 0 ? EMPTY : new PartitionData(values);
  }

  public int size() {
    return values.length;
  }

  public Object get(int pos) {
    return values[pos];
  }

  public Object[] toArray() {
    return values.clone();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof PartitionData)) {
      return false;
    }
    Object[] other = ((PartitionData) o).values;
    if (other.length != values.length) {
      return false;
    }
    for (int i = 0; i < values.length; i++) {
      if (!valueEquals(values[i], other[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean valueEquals(Object a, Object b) {
    if (a instanceof ByteBuffer && b instanceof ByteBuffer) {
      return a.equals(b);
    }
    if (a instanceof CharSequence && b instanceof CharSequence) {
      return a.toString().equals(b.toString());
    }
    if (a instanceof java.math.BigDecimal && b instanceof java.math.BigDecimal) {
      return ((java.math.BigDecimal) a).compareTo((java.math.BigDecimal) b) == 0;
    }
    return java.util.Objects.equals(a, b);
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (Object v : values) {
      Object k = v instanceof CharSequence ? v.toString()
          : v instanceof java.math.BigDecimal ? ((java.math.BigDecimal) v).stripTrailingZeros() : v;
      h = 31 * h + (k == null ? 0 : k.hashCode());
    }
    return h;
  }

  @Override
  public String toString() {
    return Arrays.toString(values);
  }
}
