package io.floe.format.expr;

import io.floe.format.expr.Expression.Operation;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolves column names against a struct (a table schema or a partition type) and converts
 * literals to the column types. Predicates whose literal the column cannot hold fold into simpler
 * ones that select the same rows: {@code intCol == 3.5} is false, {@code intCol < 3.5} is
 * {@code intCol <= 3}, {@code intCol != 3.5} is {@code intCol is not null}; a null check on a field
 * that can never be null folds to a constant.
 */
public final class Binder {
  private final Map<String, Slot> byName = new HashMap<>();
  private final Map<Integer, Slot> byId = new HashMap<>();
  /** Full names two fields share (a top-level `a.b` and field b of struct a): never bound. */
  private final Set<String> ambiguous = new HashSet<>();

  /** What the binder knows about one field of the struct. */
  private static final class Slot {
    final String name;
    final Types.NestedField field;
    final int[] position;
    final boolean neverNull;

    Slot(String name, Types.NestedField field, int[] position, boolean neverNull) {
      this.name = name;
      this.field = field;
      this.position = position;
      this.neverNull = neverNull;
    }
  }

  private Binder(Types.StructType struct) {
    index(struct, "", new int[0], true);
  }

  /** Binds every predicate of {@code expr}; fails naming the column when a name or literal does not fit. */
  public static Expression bind(Types.StructType struct, Expression expr) {
    return new Binder(struct).bind(expr);
  }

  private void index(Types.StructType struct, String prefix, int[] parent, boolean parentNeverNull) {
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField f = fields.get(i);
      int[] position = null;
      if (parent != null) {
        position = java.util.Arrays.copyOf(parent, parent.length + 1);
        position[parent.length] = i;
      }
      add(prefix + f.name(), f, position, parentNeverNull && f.isRequired());
    }
  }

  private void add(String name, Types.NestedField f, int[] position, boolean neverNull) {
    Slot slot = new Slot(name, f, position, neverNull && position != null);
    if (byName.putIfAbsent(name, slot) != null) {
      ambiguous.add(name);
    }
    byId.put(f.fieldId(), slot);
    Type type = f.type();
    switch (type.typeId()) {
      case STRUCT:
        index(type.asStructType(), name + ".", position, slot.neverNull);
        break;
      case LIST:
        add(name + ".element", type.asListType().elementField(), null, false);
        break;
      case MAP:
        add(name + ".key", type.asMapType().keyField(), null, false);
        add(name + ".value", type.asMapType().valueField(), null, false);
        break;
      default:
        break;
    }
  }

  private Expression bind(Expression expr) {
    switch (expr.op()) {
      case TRUE:
      case FALSE:
        return expr;
      case AND:
        return Expressions.and(bind(((And) expr).left()), bind(((And) expr).right()));
      case OR:
        return Expressions.or(bind(((Or) expr).left()), bind(((Or) expr).right()));
      case NOT:
        return Expressions.not(bind(((Not) expr).child()));
      default:
        if (expr instanceof BoundPredicate) {
          BoundPredicate bound = (BoundPredicate) expr;
          Slot slot = byId.get(bound.fieldId());
          if (slot == null || !slot.field.type().equals(bound.type())) {
            throw new IllegalArgumentException("Cannot rebind predicate " + bound + ": field id "
                + bound.fieldId() + " has a different type or is missing in this struct");
          }
          return bound;
        }
        return bindPredicate((UnboundPredicate) expr);
    }
  }

  private Expression bindPredicate(UnboundPredicate pred) {
    if (ambiguous.contains(pred.name())) {
      throw new IllegalArgumentException("Cannot bind column '" + pred.name()
          + "': two fields of the table schema have that full name");
    }
    Slot slot = byName.get(pred.name());
    if (slot == null) {
      throw new IllegalArgumentException("Cannot find column '" + pred.name() + "' in table schema");
    }
    Type type = slot.field.type();
    Operation op = pred.op();
    switch (op) {
      case IS_NULL:
        return slot.neverNull ? Expressions.alwaysFalse() : bound(op, slot, List.of());
      case NOT_NULL:
        return slot.neverNull ? Expressions.alwaysTrue() : bound(op, slot, List.of());
      case IS_NAN:
      case NOT_NAN:
        if (type.typeId() != Type.TypeID.FLOAT && type.typeId() != Type.TypeID.DOUBLE) {
          throw new IllegalArgumentException("Cannot use " + op.symbol() + " on column '" + slot.name
              + "' of type " + type + ": only float and double columns hold NaN");
        }
        return bound(op, slot, List.of());
      case STARTS_WITH:
      case NOT_STARTS_WITH:
        if (type.typeId() != Type.TypeID.STRING || !(pred.literal() instanceof String)) {
          throw new IllegalArgumentException("Cannot use " + op.symbol() + " " + Literals.quote(pred.literal())
              + " on column '" + slot.name + "' of type " + type + ": needs a string column and a string prefix");
        }
        return bound(op, slot, List.of(pred.literal()));
      default:
        break;
    }
    if (!type.isPrimitiveType()) {
      throw new IllegalArgumentException("Cannot bind predicate " + pred + ": column '" + slot.name
          + "' has non-primitive type " + type);
    }
    return op.isSet() ? bindSet(pred, slot) : bindComparison(pred, slot);
  }

  private Expression bindComparison(UnboundPredicate pred, Slot slot) {
    Literals.Converted lit = Literals.convert(slot.name, slot.field.type(), pred.literal());
    if (lit.isExact()) {
      return bound(pred.op(), slot, List.of(lit.exact));
    }
    switch (pred.op()) {
      case LT:
      case LT_EQ:
        return lit.below != null ? bound(Operation.LT_EQ, slot, List.of(lit.below)) : Expressions.alwaysFalse();
      case GT:
      case GT_EQ:
        return lit.above != null ? bound(Operation.GT_EQ, slot, List.of(lit.above)) : Expressions.alwaysFalse();
      case EQ:
        return Expressions.alwaysFalse();
      case NOT_EQ:
        return notNull(slot);
      default:
        throw new IllegalStateException("Not a comparison: " + pred.op());
    }
  }

  private Expression bindSet(UnboundPredicate pred, Slot slot) {
    TreeSet<Object> values = new TreeSet<>(Comparators.forType(slot.field.type()));
    for (Object value : pred.literals()) {
      Literals.Converted lit = Literals.convert(slot.name, slot.field.type(), value);
      if (lit.isExact()) {
        values.add(lit.exact);
      }
    }
    boolean in = pred.op() == Operation.IN;
    if (values.isEmpty()) {
      return in ? Expressions.alwaysFalse() : notNull(slot);
    } else if (values.size() == 1) {
      return bound(in ? Operation.EQ : Operation.NOT_EQ, slot, List.of(values.first()));
    }
    return bound(pred.op(), slot, new ArrayList<>(values));
  }

  private Expression notNull(Slot slot) {
    return slot.neverNull ? Expressions.alwaysTrue() : bound(Operation.NOT_NULL, slot, List.of());
  }

  private static BoundPredicate bound(Operation op, Slot slot, List<Object> literals) {
    return new BoundPredicate(op, slot.field.fieldId(), slot.name, slot.field.type(), new ArrayList<>(literals),
        slot.position);
  }
}
