package io.floe.format.expr;

import java.util.Objects;

/** Logical or of two expressions; build with {@link Expressions#or} so constants fold. */
public final class Or implements Expression {
  private final Expression left;
  private final Expression right;

  Or(Expression left, Expression right) {
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
    return Operation.OR;
  }

  @Override
  public Expression negate() {
    // De Morgan
    return Expressions.and(left.negate(), right.negate());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Or && left.equals(((Or) o).left) && right.equals(((Or) o).right);
  }

  @Override
  public int hashCode() {
    return Objects.hash(op(), left, right);
  }

  @Override
  public String toString() {
    return "(" + left + " or " + right + ")";
  }
}
