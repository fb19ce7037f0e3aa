package io.floe.format.index;

import io.floe.format.expr.BoundPredicate;

/** An interval of keys, each end open, closed or absent; built from comparison predicates. */
record KeyRange(Object lower, boolean lowerInclusive, Object upper, boolean upperInclusive) {
  static final KeyRange ALL = new KeyRange(null, false, null, false);

  static KeyRange exactly(Object value) {
    return new KeyRange(value, true, value, true);
  }

  /** The keys {@code pred} selects, or null when it is not a comparison. */
  static KeyRange of(BoundPredicate pred) {
    Object v = pred.literal();
    switch (pred.op()) {
      case EQ:
        return exactly(v);
      case LT:
        return new KeyRange(null, false, v, false);
      case LT_EQ:
        return new KeyRange(null, false, v, true);
      case GT:
        return new KeyRange(v, false, null, false);
      case GT_EQ:
        return new KeyRange(v, true, null, false);
      default:
        return null;
    }
  }

  /** The keys in both ranges; throws IllegalArgumentException when the ends do not compare. */
  KeyRange intersect(KeyRange other) {
    Object lo = lower;
    boolean loIn = lowerInclusive;
    if (other.lower != null) {
      int cmp = lo == null ? -1 : IndexKeys.ORDER.compare(lo, other.lower);
      if (cmp < 0 || (cmp == 0 && !other.lowerInclusive)) {
        lo = other.lower;
        loIn = other.lowerInclusive;
      }
    }
    Object hi = upper;
    boolean hiIn = upperInclusive;
    if (other.upper != null) {
      int cmp = hi == null ? 1 : IndexKeys.ORDER.compare(hi, other.upper);
      if (cmp > 0 || (cmp == 0 && !other.upperInclusive)) {
        hi = other.upper;
        hiIn = other.upperInclusive;
      }
    }
    return new KeyRange(lo, loIn, hi, hiIn);
  }

  boolean isEmpty() {
    if (lower == null || upper == null) {
      return false;
    }
    int cmp = IndexKeys.ORDER.compare(lower, upper);
    return cmp > 0 || (cmp == 0 && !(lowerInclusive && upperInclusive));
  }

  /** True when {@code key} is below the range. */
  boolean isBelow(Object key) {
    if (lower == null) {
      return false;
    }
    int cmp = IndexKeys.ORDER.compare(key, lower);
    return cmp < 0 || (cmp == 0 && !lowerInclusive);
  }

  /** True when {@code key} is above the range. */
  boolean isAbove(Object key) {
    if (upper == null) {
      return false;
    }
    int cmp = IndexKeys.ORDER.compare(key, upper);
    return cmp > 0 || (cmp == 0 && !upperInclusive);
  }

  boolean contains(Object key) {
    return !isBelow(key) && !isAbove(key);
  }
}
