package io.floe.format.expr;

import io.floe.format.partition.Transform;

/**
 * Strict projection of one bound predicate through one partition transform: a partition
 * predicate such that every row of a matching partition satisfies the row predicate. Anything
 * not known to be safe projects to {@code false}.
 */
final class StrictTransforms {
  private StrictTransforms() {}

  static Expression project(String partitionName, Transform transform, BoundPredicate pred) {
    try {
      return projectUnchecked(partitionName, transform, pred);
    } catch (ArithmeticException | IllegalArgumentException e) {
      return Expressions.alwaysFalse();
    }
  }

  private static Expression projectUnchecked(String partitionName, Transform transform, BoundPredicate pred) {
    TransformKind kind = TransformKind.of(transform);
    switch (kind.kind) {
      case IDENTITY:
        return Expressions.predicate(pred.op(), partitionName, pred.literals());
      case VOID:
      case UNKNOWN:
        return Expressions.alwaysFalse();
      default:
        break;
    }
    Object lit = pred.literal();
    switch (pred.op()) {
      case IS_NULL:
      case NOT_NULL:
        return Expressions.predicate(pred.op(), partitionName);
      case NOT_EQ:
        // t(v) != t(x) implies v != x, for any function t
        return Expressions.notEqual(partitionName, transform.apply(lit));
      case NOT_IN:
        return TransformKind.inOrEqual(partitionName, TransformKind.applyAll(transform, pred.literals()), true);
      default:
        break;
    }
    if (kind.kind != TransformKind.Kind.ORDERED) {
      return Expressions.alwaysFalse();
    }
    // t never reverses order, so t(v) < t(x) implies v < x and t(v) > t(x) implies v > x
    switch (pred.op()) {
      case LT:
        return Expressions.lessThan(partitionName, transform.apply(lit));
      case LT_EQ: {
        if (TransformKind.isMax(lit)) {
          return Expressions.notNull(partitionName);
        }
        Object next = TransformKind.step(lit, 1);
        return Expressions.lessThan(partitionName, transform.apply(next != null ? next : lit));
      }
      case GT:
        return Expressions.greaterThan(partitionName, transform.apply(lit));
      case GT_EQ: {
        if (TransformKind.isMin(lit)) {
          return Expressions.notNull(partitionName);
        }
        Object previous = TransformKind.step(lit, -1);
        return Expressions.greaterThan(partitionName, transform.apply(previous != null ? previous : lit));
      }
      case STARTS_WITH:
        return kind.keepsPrefix(lit) ? Expressions.startsWith(partitionName, (String) lit) : Expressions.alwaysFalse();
      case NOT_STARTS_WITH:
        if (kind.keepsPrefix(lit)) {
          return Expressions.notStartsWith(partitionName, (String) lit);
        }
        // a value starting with a prefix longer than the width truncates to the truncated prefix
        return kind.width > 0 && lit instanceof String
            ? Expressions.notEqual(partitionName, transform.apply(lit)) : Expressions.alwaysFalse();
      default:
        return Expressions.alwaysFalse();
    }
  }
}
