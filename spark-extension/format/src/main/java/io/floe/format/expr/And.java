package io.floe.format.expr;

import java.util.Objects;

/** Logical and of two expressions; build with {@link Expressions#and} so constants fold. */
public final class And implements Expression {
  private final Expression left;
  private final Expression right;

  And(Expression left, Expression right) {
    this.left = Objects.requireNonNull(left, "Left expression is null");
    this.right = Objects.requireNonNull(right, "Right expression is null");
  }

  public Expression left() {
    return left;
  }

  public Expression right() {
    return right;
  }

  @Override
  public Operation op() {
    return Operation.AND;
  }

  @Override
  public Expression negate() {
    // De Morgan
    return Expressions.or(left.negate(), right.negate());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof And && left.equals(((And) o).left) && right.equals(((And) o).right);
  }

  @Override
  public int hashCode() {
    return Objects.hash(op(), left, right);
  }

  @Override
  public String toString() {
    return "(" + left + " and " + right + ")";
  }
}
