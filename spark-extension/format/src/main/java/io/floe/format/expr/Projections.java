package io.floe.format.expr;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;

/**
 * Turns a row filter into a filter on partition values. The result is unbound and names
 * partition fields, ready for {@link ManifestEvaluator} or an {@link Evaluator} over
 * {@code spec.partitionType()}.
 * <ul>
 *   <li>{@link #inclusive}: selects every partition that may hold a matching row (if a row
 *       matches the filter, its partition matches the projection). For pruning scans.</li>
 *   <li>{@link #strict}: selects only partitions in which every row matches the filter (if a
 *       partition matches the projection, all of its rows match). For deciding that whole files
 *       can be dropped, as in an overwrite or delete by filter.</li>
 * </ul>
 */
public final class Projections {
  private final PartitionSpec spec;
  private final boolean strict;

  private Projections(PartitionSpec spec, boolean strict) {
    this.spec = spec;
    this.strict = strict;
  }

  public static Projections inclusive(PartitionSpec spec) {
    return new Projections(spec, false);
  }

  public static Projections strict(PartitionSpec spec) {
    return new Projections(spec, true);
  }

  /** Projects a row filter (unbound, on table column names) onto the spec's partition fields. */
  public Expression project(Expression rowFilter) {
    if (spec.fields().isEmpty()) {
      // no partition value constrains anything; this also spares binding against unpartitioned()'s empty schema
      if (rowFilter.op() == Expression.Operation.TRUE || rowFilter.op() == Expression.Operation.FALSE) {
        return rowFilter;
      }
      return strict ? Expressions.alwaysFalse() : Expressions.alwaysTrue();
    }
    return projectBound(PredicateTree.bindAndRewrite(spec.schema().asStruct(), rowFilter));
  }

  private Expression projectBound(Expression expr) {
    switch (expr.op()) {
      case TRUE:
      case FALSE:
        return expr;
      case AND:
        return Expressions.and(projectBound(((And) expr).left()), projectBound(((And) expr).right()));
      case OR:
        return Expressions.or(projectBound(((Or) expr).left()), projectBound(((Or) expr).right()));
      default:
        return projectPredicate((BoundPredicate) expr);
    }
  }

  private Expression projectPredicate(BoundPredicate pred) {
    // inclusive: every field derived from the column constrains the partition, so all apply together;
    // strict: any one field that guarantees the predicate is enough
    Expression result = strict ? Expressions.alwaysFalse() : Expressions.alwaysTrue();
    for (PartitionField field : spec.fields()) {
      if (field.sourceId() == pred.fieldId()) {
        result = strict
            ? Expressions.or(result, StrictTransforms.project(field.name(), field.transform(), pred))
            : Expressions.and(result, InclusiveTransforms.project(field.name(), field.transform(), pred));
      }
    }
    return result;
  }
}
