package io.floe.format.expr;

import io.floe.format.partition.PartitionData;
import io.floe.format.types.Types;
import java.util.Collections;

/**
 * Evaluates an expression exactly over one tuple of values, such as a partition tuple, with SQL
 * semantics: a predicate on a null value is false except {@code is null} (and {@code is not nan},
 * which like Spark's {@code NOT isnan(x)} is true for null); floating point follows Spark's order
 * (NaN above everything and equal to itself). Values are in struct field order; a nested struct's
 * value is an {@code Object[]} or a {@link PartitionData}.
 */
public final class Evaluator {
  private final Expression expr;

  public Evaluator(Types.StructType struct, Expression unbound) {
    this.expr = PredicateTree.bindAndRewrite(struct, unbound);
    checkAccessible(expr);
  }

  private static void checkAccessible(Expression e) {
    PredicateTree.forEachPredicate(e, pred -> {
      if (!pred.isStructPath()) {
        throw new IllegalArgumentException("Cannot evaluate " + pred + ": column '" + pred.name()
            + "' is inside a list or map");
      }
    });
  }

  public boolean eval(PartitionData tuple) {
    return PredicateTree.evaluate(expr, pred -> test(pred, valueOf(tuple, pred.position())));
  }

  public boolean eval(Object[] row) {
    return PredicateTree.evaluate(expr, pred -> test(pred, valueOf(row, pred.position())));
  }

  private static Object valueOf(Object tuple, int[] position) {
    Object current = tuple;
    for (int pos : position) {
      if (current == null) {
        return null;
      } else if (current instanceof Object[]) {
        current = ((Object[]) current)[pos];
      } else if (current instanceof PartitionData) {
        current = ((PartitionData) current).get(pos);
      } else {
        throw new IllegalArgumentException("Cannot read position " + pos + " of a "
            + current.getClass().getName() + ": struct values must be Object[] or PartitionData");
      }
    }
    return current;
  }

  static boolean test(BoundPredicate pred, Object value) {
    switch (pred.op()) {
      case IS_NULL:
        return value == null;
      case NOT_NULL:
        return value != null;
      case IS_NAN:
        return isNaN(value);
      case NOT_NAN:
        return !isNaN(value);
      default:
        break;
    }
    if (value == null) {
      return false;
    }
    switch (pred.op()) {
      case LT:
        return Comparators.compare(value, pred.literal()) < 0;
      case LT_EQ:
        return Comparators.compare(value, pred.literal()) <= 0;
      case GT:
        return Comparators.compare(value, pred.literal()) > 0;
      case GT_EQ:
        return Comparators.compare(value, pred.literal()) >= 0;
      case EQ:
        return Comparators.compare(value, pred.literal()) == 0;
      case NOT_EQ:
        return Comparators.compare(value, pred.literal()) != 0;
      case IN:
        return contains(pred, value);
      case NOT_IN:
        return !contains(pred, value);
      case STARTS_WITH:
        return value.toString().startsWith((String) pred.literal());
      case NOT_STARTS_WITH:
        return !value.toString().startsWith((String) pred.literal());
      default:
        throw new IllegalStateException("Unknown predicate operation: " + pred.op());
    }
  }

  private static boolean contains(BoundPredicate pred, Object value) {
    // IN literals are sorted and distinct (see Binder)
    return Collections.binarySearch(pred.literals(), value, Comparators.forType(pred.type())) >= 0;
  }

  private static boolean isNaN(Object value) {
    return (value instanceof Double && ((Double) value).isNaN()) || (value instanceof Float && ((Float) value).isNaN());
  }
}
