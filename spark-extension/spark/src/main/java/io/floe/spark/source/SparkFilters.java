package io.floe.spark.source;

import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Converts Spark DSv2 predicates ({@link Predicate}, as given to {@code SupportsPushDownV2Filters})
 * into Floe expressions.
 *
 * <p>A predicate that cannot be converted exactly yields {@code null}; the caller keeps it for
 * Spark to evaluate. Each converted leaf selects exactly the rows Spark's predicate selects, or
 * (only where SQL yields NULL, e.g. {@code a = NULL}, {@code a IN (1, NULL)}) differs in a way
 * that stays safe under NOT: a negated tree never selects fewer rows than Spark would. AND/OR
 * convert only when both sides do (a partial AND would be unsafe under NOT); Spark already
 * splits top-level conjunctions into separate predicates.
 *
 * <p>Columns are referenced by full dotted name ({@code a.b}); a top-level column whose name
 * contains a dot ({@code `a.b`}) gets the same full name, which binding resolves (Floe refuses
 * schemas where two fields share a full name, and never binds such a name). Literals are converted from Catalyst's internal values to
 * Floe's Java representation: UTF8String to String, Decimal to BigDecimal, byte[] to
 * ByteBuffer, dates stay Integer days, timestamps stay Long micros, byte/short widen to Integer.
 * Strings with a non-binary collation are not converted (their equality is not byte equality).
 * NaN literals become {@code isNaN}/{@code notNaN}; ordering comparisons with NaN are not
 * converted.
 */
public final class SparkFilters {
  private SparkFilters() {}

  /** Converts each predicate; the unconvertible ones are left out (Spark still evaluates them). */
  public static List<Expression> convert(Predicate[] predicates) {
    List<Expression> converted = new ArrayList<>(predicates.length);
    for (Predicate predicate : predicates) {
      Expression expr = convert(predicate);
      if (expr != null) {
        converted.add(expr);
      }
    }
    return converted;
  }

  /** Returns the Floe expression for {@code predicate}, or null when it cannot be converted. */
  public static Expression convert(Predicate predicate) {
    org.apache.spark.sql.connector.expressions.Expression[] args = predicate.children();
    switch (predicate.name()) {
      case "ALWAYS_TRUE":
        return Expressions.alwaysTrue();
      case "ALWAYS_FALSE":
        return Expressions.alwaysFalse();
      case "AND":
      case "OR":
        return convertLogical(predicate.name(), args);
      case "NOT":
        Expression child = args.length == 1 ? convertChild(args[0]) : null;
        return child == null ? null : Expressions.not(child);
      case "IS_NULL":
      case "IS_NOT_NULL":
        String column = args.length == 1 ? columnName(args[0]) : null;
        if (column == null) {
          return null;
        }
        return "IS_NULL".equals(predicate.name())
            ? Expressions.isNull(column)
            : Expressions.notNull(column);
      case "IN":
        return convertIn(args);
      case "STARTS_WITH":
        return convertStartsWith(args);
      case "=":
      case "<>":
      case "<=>":
      case "<":
      case "<=":
      case ">":
      case ">=":
        return convertComparison(predicate.name(), args);
      default:
        return null;
    }
  }

  private static Expression convertChild(org.apache.spark.sql.connector.expressions.Expression e) {
    return e instanceof Predicate ? convert((Predicate) e) : null;
  }

  private static Expression convertLogical(
      String op, org.apache.spark.sql.connector.expressions.Expression[] args) {
    if (args.length != 2) {
      return null;
    }
    Expression left = convertChild(args[0]);
    Expression right = convertChild(args[1]);
    if (left == null || right == null) {
      return null;
    }
    return "AND".equals(op) ? Expressions.and(left, right) : Expressions.or(left, right);
  }

  private static Expression convertComparison(
      String op, org.apache.spark.sql.connector.expressions.Expression[] args) {
    if (args.length != 2) {
      return null;
    }
    String column = columnName(args[0]);
    org.apache.spark.sql.connector.expressions.Expression other = args[1];
    if (column == null) {
      // literal on the left: "5 < a" is "a > 5"
      column = columnName(args[1]);
      other = args[0];
      op = flip(op);
    }
    if (column == null || !(other instanceof Literal)) {
      return null;
    }
    Literal<?> literal = (Literal<?>) other;
    if (!convertible(literal.dataType())) {
      return null;
    }
    Object value = toJava(literal.value(), literal.dataType());
    if (value == null) {
      // "a <=> NULL" is IS NULL; any other comparison with NULL is never true
      return "<=>".equals(op) ? Expressions.isNull(column) : Expressions.alwaysFalse();
    }
    if (isNaN(value)) {
      switch (op) {
        case "=":
        case "<=>":
          return Expressions.isNaN(column);
        case "<>":
          return Expressions.notNaN(column);
        default:
          return null; // Spark orders NaN above every number; Floe bounds do not model that
      }
    }
    switch (op) {
      case "=":
      case "<=>":
        return Expressions.equal(column, value);
      case "<>":
        return Expressions.notEqual(column, value);
      case "<":
        return Expressions.lessThan(column, value);
      case "<=":
        return Expressions.lessThanOrEqual(column, value);
      case ">":
        return Expressions.greaterThan(column, value);
      case ">=":
        return Expressions.greaterThanOrEqual(column, value);
      default:
        return null;
    }
  }

  private static String flip(String op) {
    switch (op) {
      case "<":
        return ">";
      case "<=":
        return ">=";
      case ">":
        return "<";
      case ">=":
        return "<=";
      default:
        return op; // =, <>, <=> are symmetric
    }
  }

  private static Expression convertIn(org.apache.spark.sql.connector.expressions.Expression[] args) {
    String column = args.length >= 1 ? columnName(args[0]) : null;
    if (column == null) {
      return null;
    }
    List<Object> values = new ArrayList<>(args.length - 1);
    boolean hasNaN = false;
    for (int i = 1; i < args.length; i++) {
      if (!(args[i] instanceof Literal) || !convertible(((Literal<?>) args[i]).dataType())) {
        return null;
      }
      Literal<?> literal = (Literal<?>) args[i];
      Object value = toJava(literal.value(), literal.dataType());
      if (value == null) {
        continue; // "a IN (.., NULL)" is never true because of the NULL alone
      } else if (isNaN(value)) {
        hasNaN = true;
      } else {
        values.add(value);
      }
    }
    Expression in = values.isEmpty()
        ? Expressions.alwaysFalse()
        : Expressions.in(column, values);
    return hasNaN ? Expressions.or(Expressions.isNaN(column), in) : in;
  }

  private static Expression convertStartsWith(
      org.apache.spark.sql.connector.expressions.Expression[] args) {
    String column = args.length == 2 ? columnName(args[0]) : null;
    if (column == null || !(args[1] instanceof Literal)) {
      return null;
    }
    Literal<?> literal = (Literal<?>) args[1];
    if (!(literal.dataType() instanceof StringType) || !convertible(literal.dataType())) {
      return null;
    }
    Object prefix = toJava(literal.value(), literal.dataType());
    return prefix == null ? Expressions.alwaysFalse() : Expressions.startsWith(column, (String) prefix);
  }

  /** The full dotted column name of a reference, or null for anything else. */
  static String columnName(org.apache.spark.sql.connector.expressions.Expression e) {
    if (!(e instanceof NamedReference)) {
      return null;
    }
    String[] parts = ((NamedReference) e).fieldNames();
    if (parts.length == 0) {
      return null;
    }
    for (String part : parts) {
      if (part.isEmpty()) {
        return null;
      }
    }
    return String.join(".", parts);
  }

  private static boolean convertible(DataType type) {
    if (type instanceof StringType) {
      return ((StringType) type).supportsBinaryEquality();
    }
    return type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof LongType || type instanceof FloatType
        || type instanceof DoubleType || type instanceof DecimalType || type instanceof DateType
        || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof BinaryType || type instanceof NullType;
  }

  /** Catalyst internal value to Floe's Java value; the type was checked by convertible(). */
  static Object toJava(Object value, DataType type) {
    if (value == null || type instanceof NullType) {
      return null;
    } else if (type instanceof StringType) {
      return value.toString(); // UTF8String
    } else if (type instanceof DecimalType) {
      return ((Decimal) value).toJavaBigDecimal();
    } else if (type instanceof BinaryType) {
      return ByteBuffer.wrap(((byte[]) value).clone());
    } else if (type instanceof ByteType || type instanceof ShortType) {
      return ((Number) value).intValue();
    }
    return value; // Boolean, Integer (also date days), Long (also timestamp micros), Float, Double
  }

  private static boolean isNaN(Object value) {
    return (value instanceof Double && ((Double) value).isNaN())
        || (value instanceof Float && ((Float) value).isNaN());
  }
}
