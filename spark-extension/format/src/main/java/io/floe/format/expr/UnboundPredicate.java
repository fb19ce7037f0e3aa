package io.floe.format.expr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A predicate on a column named by its dotted full name ({@code a.b} for a struct child), with the
 * literals as the caller gave them (normalized: CharSequence to String, byte[] to ByteBuffer).
 * {@link Binder} resolves it against a struct into a {@link BoundPredicate}.
 */
public final class UnboundPredicate implements Expression {
  private final Operation op;
  private final String name;
  private final List<Object> literals;

  UnboundPredicate(Operation op, String name, List<?> literals) {
    if (!op.isPredicate()) {
      throw new IllegalArgumentException("Not a predicate operation: " + op);
    }
    this.op = op;
    this.name = Objects.requireNonNull(name, "Column name is null");
    List<Object> copy = new ArrayList<>(literals.size());
    for (Object lit : literals) {
      copy.add(Literals.normalize(name, lit));
    }
    if (op.isUnary() && !copy.isEmpty()) {
      throw new IllegalArgumentException("Invalid predicate " + op + " on '" + name + "': takes no literal");
    }
    if (!op.isUnary() && !op.isSet() && copy.size() != 1) {
      throw new IllegalArgumentException(
          "Invalid predicate " + op + " on '" + name + "': needs exactly one literal, got " + copy.size());
    }
    this.literals = Collections.unmodifiableList(copy);
  }

  @Override
  public Operation op() {
    return op;
  }

  /** The referenced column's dotted full name. */
  public String name() {
    return name;
  }

  /** The single literal of a comparison or startsWith; null for unary predicates. */
  public Object literal() {
    return literals.isEmpty() ? null : literals.get(0);
  }

  public List<Object> literals() {
    return literals;
  }

  @Override
  public UnboundPredicate negate() {
    return new UnboundPredicate(op.negate(), name, literals);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof UnboundPredicate)) {
      return false;
    }
    UnboundPredicate that = (UnboundPredicate) o;
    return op == that.op && name.equals(that.name) && literals.equals(that.literals);
  }

  @Override
  public int hashCode() {
    return Objects.hash(op, name, literals);
  }

  @Override
  public String toString() {
    return Literals.describe(op, name, literals);
  }
}
