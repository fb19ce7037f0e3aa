package io.floe.format.expr;

import io.floe.format.manifest.DataFile;
import io.floe.format.types.Schema;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Decides from a data file's column metrics whether any of its rows may match a row filter.
 * Answers true unless the metrics prove otherwise. A missing count or bound is unknown, never
 * zero. Only columns reached through structs have metrics; a predicate on a field inside a list
 * or map might always match. Like Spark, NaN is above every number, so NaN rows satisfy
 * {@code >}, {@code >=} and {@code !=}, and bounds never include NaN.
 */
public final class InclusiveMetricsEvaluator {
  private final Expression expr;

  public InclusiveMetricsEvaluator(Schema schema, Expression rowFilter) {
    this.expr = PredicateTree.bindAndRewrite(schema.asStruct(), rowFilter);
  }

  /** True when some row of the file may match. */
  public boolean eval(DataFile file) {
    return eval(file.recordCount(), file.valueCounts(), file.nullValueCounts(), file.nanValueCounts(),
        file.lowerBounds(), file.upperBounds());
  }

  boolean eval(long recordCount, Map<Integer, Long> valueCounts, Map<Integer, Long> nullCounts,
      Map<Integer, Long> nanCounts, Map<Integer, ByteBuffer> lowerBounds, Map<Integer, ByteBuffer> upperBounds) {
    if (recordCount == 0) {
      return false;
    }
    return PredicateTree.evaluate(expr, pred -> !pred.isStructPath()
        || mightMatch(pred, valueCounts, nullCounts, nanCounts, lowerBounds, upperBounds));
  }

  /**
   * Looks up only the metrics the predicate's operation reads and decodes only the bounds it
   * compares with (planning evaluates this for every entry of every manifest it reads).
   */
  private static boolean mightMatch(BoundPredicate pred, Map<Integer, Long> valueCounts,
      Map<Integer, Long> nullCounts, Map<Integer, Long> nanCounts, Map<Integer, ByteBuffer> lowerBounds,
      Map<Integer, ByteBuffer> upperBounds) {
    int id = pred.fieldId();
    Expression.Operation op = pred.op();
    boolean floating = Bounds.isFloating(pred.type());
    Long values = valueCounts.get(id);
    Long nulls = nullCounts.get(id);
    Long nans = floating || op == Expression.Operation.NOT_NAN ? nanCounts.get(id) : null;
    return mightMatch(pred, floating, values, nulls, nans, usesLower(op) ? lowerBounds.get(id) : null,
        usesUpper(op) ? upperBounds.get(id) : null);
  }

  /** Whether {@link Bounds#excludes} compares with the lower bound for {@code op}. */
  private static boolean usesLower(Expression.Operation op) {
    return op != Expression.Operation.GT && op != Expression.Operation.GT_EQ;
  }

  /** Whether {@link Bounds#excludes} compares with the upper bound for {@code op}. */
  private static boolean usesUpper(Expression.Operation op) {
    return op != Expression.Operation.LT && op != Expression.Operation.LT_EQ;
  }

  private static boolean mightMatch(BoundPredicate pred, boolean floating, Long values, Long nulls, Long nans,
      ByteBuffer lowerBytes, ByteBuffer upperBytes) {
    boolean allNull = values != null && nulls != null && nulls >= values;
    boolean mayHaveNaN = floating && (nans == null || nans > 0);
    boolean allNullOrNaN = allNull
        || (values != null && nulls != null && (!floating || nans != null) && nulls + (floating ? nans : 0) >= values);
    switch (pred.op()) {
      case IS_NULL:
        return nulls == null || nulls > 0;
      case NOT_NULL:
        return !allNull;
      case IS_NAN:
        return mayHaveNaN && !allNull;
      case NOT_NAN:
        // null is "not NaN"; only a file of NaN values alone fails
        return !(values != null && nans != null && nans >= values);
      default:
        break;
    }
    if (allNull) {
      return false;
    }
    switch (pred.op()) {
      case GT:
      case GT_EQ:
      case NOT_EQ:
      case NOT_IN:
        if (mayHaveNaN) {
          return true; // NaN is above every number and unequal to it
        }
        break;
      default:
        break;
    }
    if (allNullOrNaN) {
      return false; // the NaN values fail every remaining predicate
    }
    Object lower = Bounds.decode(pred.type(), lowerBytes);
    Object upper = Bounds.decode(pred.type(), upperBytes);
    return !Bounds.excludes(pred, lower, upper);
  }
}
