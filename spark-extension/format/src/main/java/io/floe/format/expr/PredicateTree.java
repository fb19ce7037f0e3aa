package io.floe.format.expr;

import java.util.function.Predicate;

/** Walks a bound, NOT-free expression (see {@link Expressions#rewriteNot}) with a rule for the leaves. */
final class PredicateTree {
  private PredicateTree() {}

  static Expression bindAndRewrite(io.floe.format.types.Types.StructType struct, Expression expr) {
    return Expressions.rewriteNot(Binder.bind(struct, expr));
  }

  /** Calls {@code action} on every predicate of the tree. */
  static void forEachPredicate(Expression expr, java.util.function.Consumer<BoundPredicate> action) {
    if (expr instanceof And) {
      forEachPredicate(((And) expr).left(), action);
      forEachPredicate(((And) expr).right(), action);
    } else if (expr instanceof Or) {
      forEachPredicate(((Or) expr).left(), action);
      forEachPredicate(((Or) expr).right(), action);
    } else if (expr instanceof Not) {
      forEachPredicate(((Not) expr).child(), action);
    } else if (expr instanceof BoundPredicate) {
      action.accept((BoundPredicate) expr);
    }
  }

  static boolean evaluate(Expression expr, Predicate<BoundPredicate> leaf) {
    switch (expr.op()) {
      case TRUE:
        return true;
      case FALSE:
        return false;
      case AND:
        return evaluate(((And) expr).left(), leaf) && evaluate(((And) expr).right(), leaf);
      case OR:
        return evaluate(((Or) expr).left(), leaf) || evaluate(((Or) expr).right(), leaf);
      case NOT:
        throw new IllegalStateException("NOT should have been rewritten away: " + expr);
      default:
        if (!(expr instanceof BoundPredicate)) {
          throw new IllegalStateException("Predicate is not bound: " + expr);
        }
        return leaf.test((BoundPredicate) expr);
    }
  }
}
