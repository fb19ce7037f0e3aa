package io.floe.format.expr;

import io.floe.format.manifest.DataFile;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;

/**
 * Decides from a data file's column metrics whether EVERY row of it matches a row filter, so that
 * a DELETE can drop the whole file. Answers false unless the metrics prove it: a missing count or
 * bound is unknown. A comparison never holds for a null (SQL), so it needs a null count of zero;
 * floating-point columns also need a NaN count of zero. Equality needs exact bounds, so it is not
 * proved for strings and binary, whose bounds may be truncated; ranges are safe with truncated
 * bounds (a truncated lower bound is at most the minimum, an upper one at least the maximum).
 */
public final class StrictMetricsEvaluator {
  private final Expression expr;

  public StrictMetricsEvaluator(Schema schema, Expression rowFilter) {
    this.expr = PredicateTree.bindAndRewrite(schema.asStruct(), rowFilter);
  }

  /** True when every row of the file matches. */
  public boolean eval(DataFile file) {
    if (file.recordCount() <= 0) {
      return true;
    }
    return PredicateTree.evaluate(expr, pred -> pred.isStructPath() && allMatch(pred, file));
  }

  private static boolean allMatch(BoundPredicate pred, DataFile file) {
    int id = pred.fieldId();
    Long values = file.valueCounts().get(id);
    Long nulls = file.nullValueCounts().get(id);
    switch (pred.op()) {
      case IS_NULL:
        return values != null && nulls != null && nulls >= values;
      case NOT_NULL:
        return nulls != null && nulls == 0;
      default:
        break;
    }
    if (nulls == null || nulls != 0) {
      return false;
    }
    if (Bounds.isFloating(pred.type())) {
      Long nans = file.nanValueCounts().get(id);
      if (nans == null || nans != 0) {
        return false;
      }
    }
    Type type = pred.type();
    Object lower = Bounds.decode(type, file.lowerBounds().get(id));
    Object upper = Bounds.decode(type, file.upperBounds().get(id));
    boolean exactBounds = type.typeId() != Type.TypeID.STRING && type.typeId() != Type.TypeID.BINARY
        && type.typeId() != Type.TypeID.FIXED;
    switch (pred.op()) {
      case LT:
        return upper != null && Comparators.compare(upper, Bounds.literal(type, pred.literal())) < 0;
      case LT_EQ:
        return upper != null && Comparators.compare(upper, Bounds.literal(type, pred.literal())) <= 0;
      case GT:
        return lower != null && Comparators.compare(lower, Bounds.literal(type, pred.literal())) > 0;
      case GT_EQ:
        return lower != null && Comparators.compare(lower, Bounds.literal(type, pred.literal())) >= 0;
      case EQ:
        return exactBounds && lower != null && upper != null
            && Comparators.compare(lower, Bounds.literal(type, pred.literal())) == 0
            && Comparators.compare(upper, Bounds.literal(type, pred.literal())) == 0;
      case NOT_EQ: {
        Object lit = Bounds.literal(type, pred.literal());
        return (lower != null && Comparators.compare(lower, lit) > 0)
            || (upper != null && Comparators.compare(upper, lit) < 0);
      }
      case IN:
        if (!exactBounds || lower == null || upper == null || Comparators.compare(lower, upper) != 0) {
          return false;
        }
        for (Object lit : pred.literals()) {
          if (Comparators.compare(lower, Bounds.literal(type, lit)) == 0) {
            return true;
          }
        }
        return false;
      default:
        return false;
    }
  }
}
