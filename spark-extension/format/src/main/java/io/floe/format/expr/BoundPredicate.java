package io.floe.format.expr;

import io.floe.format.types.Type;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A predicate bound to one field of a struct: field id, dotted name, type and literals already in
 * the column's Java value representation (IN/NOT_IN literals sorted and distinct). Comparison
 * predicates always carry a literal of the column's type; binding folds the ones whose literal the
 * column cannot hold.
 */
public final class BoundPredicate implements Expression {
  private final Operation op;
  private final int fieldId;
  private final String name;
  private final Type type;
  private final List<Object> literals;
  private final int[] position;

  BoundPredicate(Operation op, int fieldId, String name, Type type, List<Object> literals, int[] position) {
    this.op = op;
    this.fieldId = fieldId;
    this.name = name;
    this.type = type;
    this.literals = Collections.unmodifiableList(literals);
    this.position = position;
  }

  @Override
  public Operation op() {
    return op;
  }

  public int fieldId() {
    return fieldId;
  }

  /** The bound field's dotted full name. */
  public String name() {
    return name;
  }

  public Type type() {
    return type;
  }

  /** The single literal of a comparison or startsWith; null for unary predicates. */
  public Object literal() {
    return literals.isEmpty() ? null : literals.get(0);
  }

  public List<Object> literals() {
    return literals;
  }

  /**
   * The field's position path through structs (outermost first), or null when the field is
   * inside a list or map and so has no single value per row.
   */
  int[] position() {
    return position;
  }

  /** True when every value of the field is reachable through structs only (no list or map above it). */
  public boolean isStructPath() {
    return position != null;
  }

  @Override
  public BoundPredicate negate() {
    return new BoundPredicate(op.negate(), fieldId, name, type, literals, position);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BoundPredicate)) {
      return false;
    }
    BoundPredicate that = (BoundPredicate) o;
    return op == that.op && fieldId == that.fieldId && type.equals(that.type) && literals.equals(that.literals);
  }

  @Override
  public int hashCode() {
    return Objects.hash(op, fieldId, literals);
  }

  @Override
  public String toString() {
    return Literals.describe(op, name, literals);
  }
}
