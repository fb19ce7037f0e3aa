package io.floe.format.expr;

import io.floe.format.expr.Expression.Operation;
import io.floe.format.partition.Transform;

/**
 * Inclusive projection of one bound predicate through one partition transform: a partition
 * predicate true for the partition of every row the row predicate is true for. Anything not
 * known to be safe projects to {@code true}.
 */
final class InclusiveTransforms {
  private InclusiveTransforms() {}

  static Expression project(String partitionName, Transform transform, BoundPredicate pred) {
    try {
      return projectUnchecked(partitionName, transform, pred);
    } catch (ArithmeticException | IllegalArgumentException e) {
      // a literal the transform cannot map (such as an hour past the int range) gives no constraint
      return Expressions.alwaysTrue();
    }
  }

  private static Expression projectUnchecked(String partitionName, Transform transform, BoundPredicate pred) {
    TransformKind kind = TransformKind.of(transform);
    switch (kind.kind) {
      case IDENTITY:
        return Expressions.predicate(pred.op(), partitionName, pred.literals());
      case VOID:
      case UNKNOWN:
        return Expressions.alwaysTrue();
      default:
        break;
    }
    if (pred.op() == Operation.IS_NULL || pred.op() == Operation.NOT_NULL) {
      // bucket, truncate and the time transforms map null to null and a value to a value
      return Expressions.predicate(pred.op(), partitionName);
    }
    return kind.kind == TransformKind.Kind.BUCKET
        ? bucket(partitionName, transform, pred) : ordered(partitionName, transform, pred, kind);
  }

  /** Bucket numbers carry no order: only equality survives. */
  private static Expression bucket(String partitionName, Transform transform, BoundPredicate pred) {
    switch (pred.op()) {
      case EQ:
        return Expressions.equal(partitionName, transform.apply(pred.literal()));
      case IN:
        return TransformKind.inOrEqual(partitionName, TransformKind.applyAll(transform, pred.literals()), false);
      default:
        return Expressions.alwaysTrue();
    }
  }

  /**
   * A bound on the value bounds the partition value. Strict bounds on integral values first move
   * to the neighbouring value ({@code ts < X} is {@code ts <= X - 1}), which keeps
   * {@code ts < midnight} out of the day that starts at midnight.
   */
  private static Expression ordered(String partitionName, Transform t, BoundPredicate pred, TransformKind kind) {
    Object lit = pred.literal();
    switch (pred.op()) {
      case EQ:
        return Expressions.equal(partitionName, t.apply(lit));
      case IN:
        return TransformKind.inOrEqual(partitionName, TransformKind.applyAll(t, pred.literals()), false);
      case LT_EQ:
        return Expressions.lessThanOrEqual(partitionName, t.apply(lit));
      case GT_EQ:
        return Expressions.greaterThanOrEqual(partitionName, t.apply(lit));
      case LT: {
        if (TransformKind.isMin(lit)) {
          return Expressions.alwaysFalse();
        }
        Object previous = TransformKind.step(lit, -1);
        return Expressions.lessThanOrEqual(partitionName, t.apply(previous != null ? previous : lit));
      }
      case GT: {
        if (TransformKind.isMax(lit)) {
          return Expressions.alwaysFalse();
        }
        Object next = TransformKind.step(lit, 1);
        return Expressions.greaterThanOrEqual(partitionName, t.apply(next != null ? next : lit));
      }
      case STARTS_WITH:
        // a value starting with a prefix as long as the width truncates to the truncated prefix
        if (kind.width > 0 && lit instanceof String) {
          return TransformKind.codePoints((String) lit) >= kind.width
              ? Expressions.equal(partitionName, t.apply(lit))
              : Expressions.startsWith(partitionName, (String) lit);
        }
        return Expressions.alwaysTrue();
      case NOT_STARTS_WITH:
        // with a prefix no longer than the width, truncation keeps all of the prefix to test
        return kind.keepsPrefix(lit) ? Expressions.notStartsWith(partitionName, (String) lit) : Expressions.alwaysTrue();
      default:
        return Expressions.alwaysTrue();
    }
  }
}
