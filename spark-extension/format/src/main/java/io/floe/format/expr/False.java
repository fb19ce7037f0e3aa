package io.floe.format.expr;

/** The constant false. */
public final class False implements Expression {
  static final False INSTANCE = new False();

  private False() {}

  @Override
  public Operation op() {
    return Operation.FALSE;
  }

  @Override
  public Expression negate() {
    return True.INSTANCE;
  }

  @Override
  public String toString() {
    return "false";
  }
}
