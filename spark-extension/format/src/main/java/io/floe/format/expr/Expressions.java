package io.floe.format.expr;

import io.floe.format.expr.Expression.Operation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;

/**
 * Builds expressions. {@code and}, {@code or} and {@code not} fold the constants, so a tree never
 * holds a needless true/false node. Literals may not be null or NaN (use the null/NaN predicates).
 */
public final class Expressions {
  private Expressions() {}

  public static Expression alwaysTrue() {
    return True.INSTANCE;
  }

  public static Expression alwaysFalse() {
    return False.INSTANCE;
  }

  public static Expression and(Expression left, Expression right) {
    if (left.op() == Operation.FALSE || right.op() == Operation.FALSE) {
      return alwaysFalse();
    } else if (left.op() == Operation.TRUE) {
      return right;
    } else if (right.op() == Operation.TRUE) {
      return left;
    }
    return new And(left, right);
  }

  public static Expression and(Expression first, Expression second, Expression... rest) {
    Expression result = and(first, second);
    for (Expression e : rest) {
      result = and(result, e);
    }
    return result;
  }

  public static Expression or(Expression left, Expression right) {
    if (left.op() == Operation.TRUE || right.op() == Operation.TRUE) {
      return alwaysTrue();
    } else if (left.op() == Operation.FALSE) {
      return right;
    } else if (right.op() == Operation.FALSE) {
      return left;
    }
    return new Or(left, right);
  }

  public static Expression or(Expression first, Expression second, Expression... rest) {
    Expression result = or(first, second);
    for (Expression e : rest) {
      result = or(result, e);
    }
    return result;
  }

  public static Expression not(Expression child) {
    switch (child.op()) {
      case TRUE:
        return alwaysFalse();
      case FALSE:
        return alwaysTrue();
      case NOT:
        return ((Not) child).child();
      default:
        return new Not(child);
    }
  }

  public static UnboundPredicate isNull(String name) {
    return predicate(Operation.IS_NULL, name);
  }

  public static UnboundPredicate notNull(String name) {
    return predicate(Operation.NOT_NULL, name);
  }

  public static UnboundPredicate isNaN(String name) {
    return predicate(Operation.IS_NAN, name);
  }

  public static UnboundPredicate notNaN(String name) {
    return predicate(Operation.NOT_NAN, name);
  }

  public static UnboundPredicate lessThan(String name, Object value) {
    return predicate(Operation.LT, name, value);
  }

  public static UnboundPredicate lessThanOrEqual(String name, Object value) {
    return predicate(Operation.LT_EQ, name, value);
  }

  public static UnboundPredicate greaterThan(String name, Object value) {
    return predicate(Operation.GT, name, value);
  }

  public static UnboundPredicate greaterThanOrEqual(String name, Object value) {
    return predicate(Operation.GT_EQ, name, value);
  }

  public static UnboundPredicate equal(String name, Object value) {
    return predicate(Operation.EQ, name, value);
  }

  public static UnboundPredicate notEqual(String name, Object value) {
    return predicate(Operation.NOT_EQ, name, value);
  }

  public static UnboundPredicate startsWith(String name, String prefix) {
    return predicate(Operation.STARTS_WITH, name, prefix);
  }

  public static UnboundPredicate notStartsWith(String name, String prefix) {
    return predicate(Operation.NOT_STARTS_WITH, name, prefix);
  }

  /** {@code name IN (values)}; an empty list is always false. */
  public static Expression in(String name, Object... values) {
    return in(name, Arrays.asList(values));
  }

  public static Expression in(String name, Collection<?> values) {
    return values.isEmpty() ? alwaysFalse() : new UnboundPredicate(Operation.IN, name, new ArrayList<>(values));
  }

  /** {@code name NOT IN (values)}; an empty list is always true (the negation of an empty IN). */
  public static Expression notIn(String name, Object... values) {
    return notIn(name, Arrays.asList(values));
  }

  public static Expression notIn(String name, Collection<?> values) {
    return values.isEmpty() ? alwaysTrue() : new UnboundPredicate(Operation.NOT_IN, name, new ArrayList<>(values));
  }

  /** A predicate from its parts, e.g. for converting another engine's filters. */
  public static UnboundPredicate predicate(Operation op, String name, Object... values) {
    return new UnboundPredicate(op, name, Arrays.asList(values));
  }

  public static UnboundPredicate predicate(Operation op, String name, Collection<?> values) {
    return new UnboundPredicate(op, name, new ArrayList<>(values));
  }

  /**
   * Removes every NOT by pushing it into the predicates ({@code not(x < 5)} becomes {@code x >= 5},
   * De Morgan for and/or). Evaluating the result with "a predicate on null is false" gives SQL's
   * three-valued answer for whether a row is selected.
   */
  public static Expression rewriteNot(Expression expr) {
    switch (expr.op()) {
      case TRUE:
      case FALSE:
        return expr;
      case AND:
        return and(rewriteNot(((And) expr).left()), rewriteNot(((And) expr).right()));
      case OR:
        return or(rewriteNot(((Or) expr).left()), rewriteNot(((Or) expr).right()));
      case NOT:
        return rewriteNot(((Not) expr).child().negate());
      default:
        return expr;
    }
  }
}
