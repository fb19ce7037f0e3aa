package io.floe.spark.source;

import io.floe.format.expr.And;
import io.floe.format.expr.Binder;
import io.floe.format.expr.BoundPredicate;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.expr.Or;
import io.floe.format.expr.Projections;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.spark.sql.connector.expressions.Literal;

/**
 * Decides whether a filter selects whole partitions in every spec: its inclusive projection (the
 * partitions that may hold a matching row) equals its strict projection (the partitions whose rows
 * all match), as {@code ts >= '2024-03-01'} on {@code days(ts)} or {@code category = 'a'} on an
 * identity partition. Planning evaluates the projection on every file's partition tuple, so every
 * row of every planned file matches such a filter and Spark need not evaluate it again.
 *
 * <p>The projections are compared after binding, with {@code p > v} written {@code p >= v + 1}
 * and {@code p < v} written {@code p <= v - 1} on integral partition values (days, months, hours,
 * truncated integers), so that {@code day > D - 1} (strict) equals {@code day >= D} (inclusive).
 */
final class WholePartitionFilters {
  private WholePartitionFilters() {}

  /**
   * True when {@code converted} (the Floe form of {@code predicate}) selects whole partitions of
   * each spec. A predicate with a NULL literal is never trusted: its Floe form may select more rows
   * than SQL's three-valued logic under NOT.
   */
  static boolean selectsWholePartitions(org.apache.spark.sql.connector.expressions.Expression predicate,
      Expression converted, Collection<PartitionSpec> specs) {
    if (hasNullLiteral(predicate) || specs.isEmpty()) {
      return false;
    }
    for (PartitionSpec spec : specs) {
      try {
        if (spec.fields().isEmpty()) {
          return false;
        }
        String inclusive = canonical(bind(spec, Projections.inclusive(spec).project(converted)));
        String strict = canonical(bind(spec, Projections.strict(spec).project(converted)));
        if (!inclusive.equals(strict)) {
          return false;
        }
      } catch (RuntimeException e) {
        return false; // cannot project or bind for this spec: let Spark filter
      }
    }
    return true;
  }

  private static boolean hasNullLiteral(org.apache.spark.sql.connector.expressions.Expression e) {
    if (e instanceof Literal && ((Literal<?>) e).value() == null) {
      return true;
    }
    for (org.apache.spark.sql.connector.expressions.Expression child : e.children()) {
      if (hasNullLiteral(child)) {
        return true;
      }
    }
    return false;
  }

  private static Expression bind(PartitionSpec spec, Expression partitionFilter) {
    return Expressions.rewriteNot(Binder.bind(spec.partitionType(), partitionFilter));
  }

  /** A text form equal for equal bound trees, with strict integral bounds made inclusive. */
  private static String canonical(Expression e) {
    switch (e.op()) {
      case TRUE:
      case FALSE:
        return e.op().name();
      case AND:
        return "and(" + canonical(((And) e).left()) + ", " + canonical(((And) e).right()) + ")";
      case OR:
        return "or(" + canonical(((Or) e).left()) + ", " + canonical(((Or) e).right()) + ")";
      default:
        break;
    }
    if (!(e instanceof BoundPredicate)) {
      throw new IllegalStateException("Not a bound predicate: " + e);
    }
    BoundPredicate p = (BoundPredicate) e;
    Expression.Operation op = p.op();
    List<Object> literals = new ArrayList<>(p.literals());
    if (literals.size() == 1 && integral(p.type())) {
      long v = ((Number) literals.get(0)).longValue();
      if (op == Expression.Operation.GT && v < Long.MAX_VALUE) {
        op = Expression.Operation.GT_EQ;
        literals.set(0, v + 1);
      } else if (op == Expression.Operation.LT && v > Long.MIN_VALUE) {
        op = Expression.Operation.LT_EQ;
        literals.set(0, v - 1);
      } else {
        literals.set(0, v);
      }
    }
    return op + "#" + p.fieldId() + "#" + p.type() + literals;
  }

  private static boolean integral(Type type) {
    switch (type.typeId()) {
      case INTEGER:
      case LONG:
      case DATE:
        return true;
      default:
        return false;
    }
  }
}
