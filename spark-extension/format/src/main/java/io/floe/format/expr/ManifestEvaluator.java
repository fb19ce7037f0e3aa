package io.floe.format.expr;

import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.PartitionFieldSummary;
import io.floe.format.partition.PartitionSpec;
import java.util.List;

/**
 * Decides from a manifest's partition summaries whether any of its files may hold a partition
 * that matches a partition filter (an expression on partition field names, as produced by
 * {@link Projections#inclusive}). Answers true unless it is sure; a manifest without summaries
 * always might match. Per the spec a summary's bounds cover the non-null, non-NaN values and are
 * absent when every value is null or NaN.
 */
public final class ManifestEvaluator {
  private final Expression expr;

  private ManifestEvaluator(Expression partitionFilter, PartitionSpec spec) {
    this.expr = PredicateTree.bindAndRewrite(spec.partitionType(), partitionFilter);
  }

  public static ManifestEvaluator forPartitionFilter(Expression partitionFilter, PartitionSpec spec) {
    return new ManifestEvaluator(partitionFilter, spec);
  }

  /** Projects a row filter through the spec first. */
  public static ManifestEvaluator forRowFilter(Expression rowFilter, PartitionSpec spec) {
    return new ManifestEvaluator(Projections.inclusive(spec).project(rowFilter), spec);
  }

  /** True when the manifest may list a file in a matching partition. */
  public boolean eval(ManifestFile manifest) {
    return eval(manifest.partitions());
  }

  boolean eval(List<PartitionFieldSummary> summaries) {
    if (summaries == null) {
      return true;
    }
    return PredicateTree.evaluate(expr, pred -> {
      int pos = pred.position()[0];
      return pos >= summaries.size() || mightMatch(pred, summaries.get(pos));
    });
  }

  private static boolean mightMatch(BoundPredicate pred, PartitionFieldSummary summary) {
    boolean floating = Bounds.isFloating(pred.type());
    Boolean containsNaN = summary.containsNaN();
    boolean mayHaveNaN = floating && !Boolean.FALSE.equals(containsNaN);
    Object lower = Bounds.decode(pred.type(), summary.lowerBound());
    Object upper = Bounds.decode(pred.type(), summary.upperBound());
    boolean noPlainValues = summary.lowerBound() == null && summary.upperBound() == null;
    switch (pred.op()) {
      case IS_NULL:
        return summary.containsNull();
      case NOT_NULL:
        return !(noPlainValues && !mayHaveNaN);
      case IS_NAN:
        return mayHaveNaN;
      case NOT_NAN:
        // only NaN values (no null, which is "not NaN", and no plain value)
        return !(noPlainValues && Boolean.TRUE.equals(containsNaN) && !summary.containsNull());
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
    if (noPlainValues) {
      return false; // only nulls and NaN, which fail every remaining predicate
    }
    return !Bounds.excludes(pred, lower, upper);
  }
}
