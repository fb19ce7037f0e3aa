package io.floe.format.expr;

import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Range checks of a bound predicate against a lower and an upper bound (column bounds of a file or
 * partition bounds of a manifest). A lower bound is at most every non-null, non-NaN value and an
 * upper bound at least every one; either may be missing (null: unknown). String bounds may be
 * truncated (the upper one then incremented), so they are compared as UTF-8 bytes and only as
 * bounds, never as values. Each check answers "no value in the range can satisfy the predicate".
 */
final class Bounds {
  private Bounds() {}

  /** Decodes a serialized bound for comparison with {@link #literal}; null or NaN gives null. */
  static Object decode(Type type, ByteBuffer bytes) {
    if (bytes == null) {
      return null;
    }
    if (type.typeId() == Type.TypeID.STRING) {
      return bytes.duplicate();
    }
    Object value;
    try {
      value = Conversions.fromByteBuffer(type, bytes);
    } catch (IllegalArgumentException e) {
      return null; // an unreadable bound is an unknown bound: it must not prune
    }
    if ((value instanceof Double && ((Double) value).isNaN()) || (value instanceof Float && ((Float) value).isNaN())) {
      return null;
    }
    return value;
  }

  /** A predicate literal in the form {@link #decode} gives bounds (strings as UTF-8 bytes). */
  static Object literal(Type type, Object value) {
    if (type.typeId() == Type.TypeID.STRING) {
      return ByteBuffer.wrap(value.toString().getBytes(StandardCharsets.UTF_8));
    }
    return value;
  }

  static boolean isFloating(Type type) {
    return type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
  }

  /**
   * True when no value within [lower, upper] can satisfy a range, equality, set or prefix
   * predicate. Callers deal with null/NaN-only columns and with NaN values (which satisfy
   * {@code >}, {@code >=}, {@code !=}) before asking.
   */
  static boolean excludes(BoundPredicate pred, Object lower, Object upper) {
    Type type = pred.type();
    switch (pred.op()) {
      case LT:
        return lower != null && Comparators.compare(lower, literal(type, pred.literal())) >= 0;
      case LT_EQ:
        return lower != null && Comparators.compare(lower, literal(type, pred.literal())) > 0;
      case GT:
        return upper != null && Comparators.compare(upper, literal(type, pred.literal())) <= 0;
      case GT_EQ:
        return upper != null && Comparators.compare(upper, literal(type, pred.literal())) < 0;
      case EQ:
        return outside(literal(type, pred.literal()), lower, upper);
      case IN:
        return allOutside(type, pred.literals(), lower, upper);
      case STARTS_WITH:
        return prefixOutside((ByteBuffer) literal(type, pred.literal()), (ByteBuffer) lower, (ByteBuffer) upper);
      case NOT_STARTS_WITH:
        return prefixCoversAll((ByteBuffer) literal(type, pred.literal()), (ByteBuffer) lower, (ByteBuffer) upper);
      default:
        return false;
    }
  }

  private static boolean outside(Object lit, Object lower, Object upper) {
    return (lower != null && Comparators.compare(lower, lit) > 0)
        || (upper != null && Comparators.compare(upper, lit) < 0);
  }

  private static boolean allOutside(Type type, List<Object> literals, Object lower, Object upper) {
    for (Object lit : literals) {
      if (!outside(literal(type, lit), lower, upper)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every value v >= lower has a first-n-bytes prefix >= lower's (n = prefix length), and every
   * v <= upper one <= upper's, so a prefix outside those two cuts cannot start any value.
   */
  private static boolean prefixOutside(ByteBuffer prefix, ByteBuffer lower, ByteBuffer upper) {
    int n = prefix.remaining();
    return (lower != null && Comparators.compareBytes(head(lower, n), prefix) > 0)
        || (upper != null && Comparators.compareBytes(head(upper, n), prefix) < 0);
  }

  /** Strings starting with a prefix form one interval: both bounds inside it puts every value inside. */
  private static boolean prefixCoversAll(ByteBuffer prefix, ByteBuffer lower, ByteBuffer upper) {
    return lower != null && upper != null
        && Comparators.startsWith(lower, prefix) && Comparators.startsWith(upper, prefix);
  }

  private static ByteBuffer head(ByteBuffer buf, int n) {
    ByteBuffer dup = buf.duplicate();
    if (dup.remaining() > n) {
      dup.limit(dup.position() + n);
    }
    return dup;
  }
}
