package io.floe.format.expr;

/** The constant true. */
public final class True implements Expression {
  static final True INSTANCE = new True();

  private True() {}

  @Override
  public Operation op() {
    return Operation.TRUE;
  }

  @Override
  public Expression negate() {
    return False.INSTANCE;
  }

  @Override
  public String toString() {
    return "true";
  }
}
