package io.floe.format.expr;

import java.util.Objects;

/** Logical negation; build with {@link Expressions#not} so constants and double negation fold. */
public final class Not implements Expression {
  private final Expression child;

  Not(Expression child) {
    this.child = Objects.requireNonNull(child, "Child expression is null");
  }

  public Expression child() {
    return child;
  }

  @Override
  public Operation op() {
    return Operation.NOT;
  }

  @Override
  public Expression negate() {
    return child;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Not && child.equals(((Not) o).child);
  }

  @Override
  public int hashCode() {
    return Objects.hash(op(), child);
  }

  @Override
  public String toString() {
    return "not(" + child + ")";
  }
}
