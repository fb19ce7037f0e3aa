package io.floe.format.expr;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/** Literal checks and conversion of a literal to a column's Java value representation. */
final class Literals {
  private Literals() {}

  /**
   * The result of converting a literal to a column type: the exact value when the column can hold
   * it, otherwise the nearest representable values on each side (null when there is none), which
   * lets the binder rewrite {@code x < 3.5} on an int column as {@code x <= 3}.
   */
  static final class Converted {
    final Object exact;
    final Object below;
    final Object above;

    private Converted(Object exact, Object below, Object above) {
      this.exact = exact;
      this.below = below;
      this.above = above;
    }

    static Converted exact(Object value) {
      return new Converted(value, null, null);
    }

    static Converted between(Object below, Object above) {
      return new Converted(null, below, above);
    }

    boolean isExact() {
      return exact != null;
    }
  }

  /** Checks a literal given to a predicate and brings it to a canonical Java class. */
  static Object normalize(String column, Object value) {
    if (value == null) {
      throw new IllegalArgumentException(
          "Invalid literal for column '" + column + "': null (use isNull or notNull)");
    }
    if ((value instanceof Double && ((Double) value).isNaN()) || (value instanceof Float && ((Float) value).isNaN())) {
      throw new IllegalArgumentException(
          "Invalid literal for column '" + column + "': NaN (use isNaN or notNaN)");
    }
    if (value instanceof Short || value instanceof Byte) {
      return ((Number) value).intValue();
    }
    if (value instanceof CharSequence) {
      return value.toString();
    }
    if (value instanceof byte[]) {
      return ByteBuffer.wrap(((byte[]) value).clone()).asReadOnlyBuffer();
    }
    if (value instanceof ByteBuffer) {
      ByteBuffer src = ((ByteBuffer) value).duplicate();
      ByteBuffer copy = ByteBuffer.allocate(src.remaining());
      copy.put(src).flip();
      return copy.asReadOnlyBuffer();
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Float || value instanceof Double
        || value instanceof BigDecimal || value instanceof Boolean || value instanceof UUID) {
      return value;
    }
    throw new IllegalArgumentException("Unsupported literal for column '" + column + "': " + value
        + " (" + value.getClass().getName() + ")");
  }

  /** Converts a normalized literal to the column type, or fails naming the column, value and type. */
  static Converted convert(String column, Type type, Object value) {
    switch (type.typeId()) {
      case BOOLEAN:
        if (value instanceof Boolean) {
          return Converted.exact(value);
        }
        break;
      case INTEGER:
        if (value instanceof Number) {
          return toIntegral((Number) value, Integer.MIN_VALUE, Integer.MAX_VALUE, true);
        }
        break;
      case DATE:
        if (value instanceof Integer || value instanceof Long) {
          return toIntegral((Number) value, Integer.MIN_VALUE, Integer.MAX_VALUE, true);
        }
        break;
      case LONG:
        if (value instanceof Number) {
          return toIntegral((Number) value, Long.MIN_VALUE, Long.MAX_VALUE, false);
        }
        break;
      case TIME:
      case TIMESTAMP:
        if (value instanceof Integer || value instanceof Long) {
          return toIntegral((Number) value, Long.MIN_VALUE, Long.MAX_VALUE, false);
        }
        break;
      case FLOAT:
      case DOUBLE:
        if (value instanceof Number) {
          return toFloating((Number) value, type.typeId() == Type.TypeID.FLOAT);
        }
        break;
      case DECIMAL:
        if (value instanceof Integer || value instanceof Long || value instanceof BigDecimal) {
          return toDecimal(exactDecimal((Number) value), ((Types.DecimalType) type).scale());
        }
        break;
      case STRING:
        if (value instanceof String) {
          return Converted.exact(value);
        }
        break;
      case UUID:
        if (value instanceof UUID) {
          return Converted.exact(value);
        }
        if (value instanceof String) {
          try {
            return Converted.exact(UUID.fromString((String) value));
          } catch (IllegalArgumentException e) {
            break;
          }
        }
        break;
      case FIXED:
      case BINARY:
        if (value instanceof ByteBuffer) {
          return Converted.exact(value);
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException("Cannot convert literal " + quote(value) + " ("
        + value.getClass().getSimpleName() + ") to type " + type + " of column '" + column + "'");
  }

  private static BigDecimal exactDecimal(Number n) {
    if (n instanceof BigDecimal) {
      return (BigDecimal) n;
    } else if (n instanceof Double || n instanceof Float) {
      return new BigDecimal(n.doubleValue());
    }
    return BigDecimal.valueOf(n.longValue());
  }

  private static Converted toIntegral(Number n, long min, long max, boolean asInt) {
    Object below;
    Object above;
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      if (Double.isInfinite(d)) {
        return d > 0 ? Converted.between(box(max, asInt), null) : Converted.between(null, box(min, asInt));
      }
    }
    BigDecimal value = exactDecimal(n);
    BigDecimal floor = value.setScale(0, RoundingMode.FLOOR);
    BigDecimal ceil = value.setScale(0, RoundingMode.CEILING);
    BigDecimal lo = BigDecimal.valueOf(min);
    BigDecimal hi = BigDecimal.valueOf(max);
    if (floor.compareTo(ceil) == 0 && floor.compareTo(lo) >= 0 && floor.compareTo(hi) <= 0) {
      return Converted.exact(box(floor.longValueExact(), asInt));
    }
    below = floor.compareTo(hi) > 0 ? box(max, asInt) : floor.compareTo(lo) < 0 ? null : box(floor.longValueExact(), asInt);
    above = ceil.compareTo(lo) < 0 ? box(min, asInt) : ceil.compareTo(hi) > 0 ? null : box(ceil.longValueExact(), asInt);
    return Converted.between(below, above);
  }

  private static Object box(long value, boolean asInt) {
    return asInt ? (Object) (int) value : (Object) value;
  }

  private static Converted toDecimal(BigDecimal value, int scale) {
    BigDecimal floor = value.setScale(scale, RoundingMode.FLOOR);
    if (floor.compareTo(value) == 0) {
      return Converted.exact(floor);
    }
    return Converted.between(floor, value.setScale(scale, RoundingMode.CEILING));
  }

  private static Converted toFloating(Number n, boolean toFloat) {
    if (n instanceof Float) {
      return Converted.exact(toFloat ? n : (Object) n.doubleValue());
    }
    if (n instanceof Double) {
      double d = n.doubleValue();
      if (!toFloat) {
        return Converted.exact(d);
      }
      float f = (float) d;
      if ((double) f == d) {
        return Converted.exact(f);
      }
      return f > d ? Converted.between(Math.nextDown(f), f) : Converted.between(f, Math.nextUp(f));
    }
    BigDecimal value = exactDecimal(n);
    if (toFloat) {
      float f = value.floatValue();
      int cmp = Float.isInfinite(f) ? (f > 0 ? 1 : -1) : new BigDecimal(f).compareTo(value);
      if (cmp == 0) {
        return Converted.exact(f == 0.0f ? 0.0f : f);
      }
      return cmp > 0 ? Converted.between(Math.nextDown(f), f) : Converted.between(f, Math.nextUp(f));
    }
    double d = value.doubleValue();
    int cmp = Double.isInfinite(d) ? (d > 0 ? 1 : -1) : new BigDecimal(d).compareTo(value);
    if (cmp == 0) {
      return Converted.exact(d == 0.0 ? 0.0 : d);
    }
    return cmp > 0 ? Converted.between(Math.nextDown(d), d) : Converted.between(d, Math.nextUp(d));
  }

  static String quote(Object value) {
    if (value instanceof String) {
      return "'" + value + "'";
    } else if (value instanceof ByteBuffer) {
      ByteBuffer buf = (ByteBuffer) value;
      StringBuilder sb = new StringBuilder("X'");
      for (int i = buf.position(); i < buf.limit(); i++) {
        sb.append(String.format("%02X", buf.get(i) & 0xFF));
      }
      return sb.append("'").toString();
    }
    return String.valueOf(value);
  }

  static String describe(Expression.Operation op, String name, List<Object> literals) {
    if (op.isUnary()) {
      return name + " " + op.symbol();
    } else if (op.isSet()) {
      return name + " " + op.symbol() + " (" + literals.stream().map(Literals::quote).collect(Collectors.joining(", ")) + ")";
    }
    return name + " " + op.symbol() + " " + quote(literals.get(0));
  }
}
