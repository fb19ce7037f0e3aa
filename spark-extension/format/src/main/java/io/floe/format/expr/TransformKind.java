package io.floe.format.expr;

import io.floe.format.partition.Transform;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the projections need to know about a partition transform, recognised by its spec name
 * ({@code identity}, {@code void}, {@code bucket[N]}, {@code truncate[W]}, {@code year},
 * {@code month}, {@code day}, {@code hour}) so that any implementation of {@link Transform} works.
 * Values are always computed with {@link Transform#apply}.
 */
final class TransformKind {
  enum Kind {
    IDENTITY, VOID, BUCKET,
    /** Never reverses order ({@code a <= b} implies {@code t(a) <= t(b)}): truncate and the time transforms. */
    ORDERED,
    UNKNOWN
  }

  private static final Pattern WITH_PARAM = Pattern.compile("(\\w+)\\[(\\d+)\\]");

  final Kind kind;
  /** The truncate width (string prefixes), or -1. */
  final int width;

  private TransformKind(Kind kind, int width) {
    this.kind = kind;
    this.width = width;
  }

  static TransformKind of(Transform transform) {
    String name = transform.toString().trim().toLowerCase(Locale.ROOT);
    if (transform.isIdentity() || name.equals("identity")) {
      return new TransformKind(Kind.IDENTITY, -1);
    } else if (transform.isVoid() || name.equals("void")) {
      return new TransformKind(Kind.VOID, -1);
    }
    Matcher param = WITH_PARAM.matcher(name);
    if (param.matches() && param.group(1).equals("bucket")) {
      return new TransformKind(Kind.BUCKET, -1);
    } else if (param.matches() && param.group(1).equals("truncate")) {
      return new TransformKind(Kind.ORDERED, Integer.parseInt(param.group(2)));
    }
    switch (name) {
      case "year":
      case "month":
      case "day":
      case "hour":
        return new TransformKind(Kind.ORDERED, -1);
      default:
        return new TransformKind(Kind.UNKNOWN, -1);
    }
  }

  /** True for a string prefix no longer (in code points) than the truncate width. */
  boolean keepsPrefix(Object prefix) {
    return width > 0 && prefix instanceof String && codePoints((String) prefix) <= width;
  }

  static int codePoints(String s) {
    return s.codePointCount(0, s.length());
  }

  /** The distinct transformed values, sorted. */
  static List<Object> applyAll(Transform transform, List<Object> values) {
    TreeSet<Object> out = new TreeSet<>(Comparators::compare);
    for (Object v : values) {
      out.add(transform.apply(v));
    }
    return new ArrayList<>(out);
  }

  static Expression inOrEqual(String name, List<Object> values, boolean negated) {
    if (values.size() == 1) {
      return negated ? Expressions.notEqual(name, values.get(0)) : Expressions.equal(name, values.get(0));
    }
    return negated ? Expressions.notIn(name, values) : Expressions.in(name, values);
  }

  static boolean isMin(Object v) {
    return (v instanceof Integer && (Integer) v == Integer.MIN_VALUE) || (v instanceof Long && (Long) v == Long.MIN_VALUE);
  }

  static boolean isMax(Object v) {
    return (v instanceof Integer && (Integer) v == Integer.MAX_VALUE) || (v instanceof Long && (Long) v == Long.MAX_VALUE);
  }

  /**
   * The next ({@code direction} 1) or previous (-1) value of an integral or decimal literal, null
   * for other types (strings, binary) and at the ends of the range.
   */
  static Object step(Object v, int direction) {
    if (v instanceof Integer) {
      return direction > 0 ? (isMax(v) ? null : (Object) ((Integer) v + 1)) : (isMin(v) ? null : (Object) ((Integer) v - 1));
    } else if (v instanceof Long) {
      return direction > 0 ? (isMax(v) ? null : (Object) ((Long) v + 1)) : (isMin(v) ? null : (Object) ((Long) v - 1));
    } else if (v instanceof BigDecimal) {
      BigDecimal d = (BigDecimal) v;
      return direction > 0 ? d.add(d.ulp()) : d.subtract(d.ulp());
    }
    return null;
  }
}
