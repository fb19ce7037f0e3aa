package io.floe.spark.extensions;

import io.floe.spark.write.PositionDeltaOperation;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BloomFilterMightContain;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.ScalarSubquery;
import org.apache.spark.sql.catalyst.expressions.XxHash64;
import org.apache.spark.sql.catalyst.expressions.aggregate.BloomFilterAggregate;
import org.apache.spark.sql.catalyst.planning.ExtractEquiJoinKeys$;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Subquery;
import org.apache.spark.sql.catalyst.plans.logical.Subquery$;
import org.apache.spark.sql.catalyst.plans.logical.WriteDelta;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationTable;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.SparkSession;
import scala.Option;
import scala.math.BigInt;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * A merge-on-read {@code MERGE} into a Floe table reads only the target rows whose keys the source
 * may hold. Spark joins every target row with the source: for a small source that is a shuffle and
 * sort of the whole table's keys and row ids ({@code _file}, {@code _pos}, ...), nearly all of it
 * for rows that match nothing. This rule puts a Bloom filter of the source's join keys (Spark's own
 * {@code bloom_filter_agg} and {@code might_contain}, as its runtime filters use) on the target side
 * of the join, so the rows without a possible match are dropped in the scan's stage, before the
 * shuffle.
 *
 * <p>It is safe because the target is the side the join does not preserve: the rewrite joins with
 * {@code INNER} or {@code RIGHT OUTER} (no {@code WHEN NOT MATCHED BY SOURCE} clause), where a
 * target row without an equal key in the source contributes nothing. A Bloom filter has no false
 * negatives, so every matching row passes. The source is evaluated a second time (for its keys
 * only), so the rule applies only to a deterministic source that Spark estimates at most
 * {@code spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold} (10 MB by default), and
 * not at all with {@code spark.sql.optimizer.runtime.bloomFilter.enabled=false}.
 *
 * <p>The rule runs in the optimizer's operator-optimization batch, after Spark optimized the plan's
 * subqueries and before it builds the DSv2 scans ("Early Filter and Projection Push-Down", which
 * does not reach into subqueries; a pre-CBO rule runs before it too). So the subquery it adds is
 * optimized here, by the session's optimizer, as Spark's {@code OptimizeSubqueries} does: that
 * builds the scan of a source that reads a Floe or Iceberg table, prunes it to the key columns and
 * takes Python calls out into their own operator.
 */
public final class MergeTargetKeyFilter extends Rule<LogicalPlan> {
  private final SparkSession spark;

  public MergeTargetKeyFilter(SparkSession spark) {
    this.spark = spark;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    SQLConf conf = SQLConf.get();
    if (!conf.runtimeFilterBloomFilterEnabled()) {
      return plan;
    }
    return rewrite(plan, conf);
  }

  private LogicalPlan rewrite(LogicalPlan plan, SQLConf conf) {
    if (plan instanceof WriteDelta write && isFloeMerge(write.table())) {
      return write.withNewChildren(CollectionConverters.asScala(List.of(filterJoin(write.query(), conf))).toList());
    }
    return plan.mapChildren(new AbstractFunction1<>() {
      @Override
      public LogicalPlan apply(LogicalPlan child) {
        return rewrite(child, conf);
      }
    });
  }

  /** The first join under the MERGE's row handling (MergeRows, projections) gets the filter. */
  private LogicalPlan filterJoin(LogicalPlan plan, SQLConf conf) {
    if (plan instanceof Join join) {
      return withKeyFilter(join, conf);
    }
    if (plan.children().size() != 1) {
      return plan;
    }
    LogicalPlan child = plan.children().head();
    LogicalPlan rewritten = filterJoin(child, conf);
    return rewritten == child ? plan : plan.withNewChildren(CollectionConverters.asScala(List.of(rewritten)).toList());
  }

  private LogicalPlan withKeyFilter(Join join, SQLConf conf) {
    JoinType type = join.joinType();
    if (type != Inner$.MODULE$ && type != RightOuter$.MODULE$) {
      return join;
    }
    var keys = ExtractEquiJoinKeys$.MODULE$.unapply(join);
    if (keys.isEmpty()) {
      return join;
    }
    List<Expression> targetKeys = CollectionConverters.asJava(keys.get()._2());
    List<Expression> sourceKeys = CollectionConverters.asJava(keys.get()._3());
    LogicalPlan target = join.left();
    LogicalPlan source = join.right();
    if (targetKeys.isEmpty() || !readsMergeTarget(target) || hasKeyFilter(target)
        || !deterministic(source) || !sizeAllows(source, conf)) {
      return join;
    }
    for (int i = 0; i < targetKeys.size(); i++) {
      Expression t = targetKeys.get(i);
      Expression s = sourceKeys.get(i);
      if (!t.deterministic() || !s.deterministic() || !t.dataType().sameType(s.dataType())) {
        return join;
      }
    }
    Option<BigInt> rows = source.stats().rowCount();
    Expression sourceHash = new XxHash64(CollectionConverters.asScala(sourceKeys).toList());
    BloomFilterAggregate bloom = rows.isDefined() && rows.get().longValue() > 0
        ? new BloomFilterAggregate(sourceHash, rows.get().longValue())
        : new BloomFilterAggregate(sourceHash);
    Alias alias = new Alias(bloom.toAggregateExpression(), "floe_merge_source_keys", NamedExpression$.MODULE$.newExprId(),
        emptySeq(), Option.empty(), emptySeq());
    // only the key columns of the source: the optimizer has already pruned the main plan's columns
    List<NamedExpression> keyColumns = new ArrayList<>();
    for (Expression key : sourceKeys) {
      for (Attribute a : CollectionConverters.asJava(key.references().toSeq())) {
        if (!keyColumns.contains(a)) {
          keyColumns.add(a);
        }
      }
    }
    LogicalPlan keysOnly = new Project(CollectionConverters.asScala(keyColumns).toList(), source);
    Aggregate aggregate = new Aggregate(emptySeq(), CollectionConverters.asScala(List.<NamedExpression>of(alias)).toList(),
        keysOnly, Option.empty());
    ScalarSubquery subquery = new ScalarSubquery(aggregate, emptySeq(), NamedExpression$.MODULE$.newExprId(), emptySeq(),
        Option.empty(), Option.empty(), Option.empty());
    Subquery optimized = (Subquery) spark.sessionState().optimizer().execute(Subquery$.MODULE$.fromExpression(subquery));
    subquery = subquery.withNewPlan(optimized.child());
    Expression mightContain = new BloomFilterMightContain(subquery,
        new XxHash64(CollectionConverters.asScala(targetKeys).toList()));
    return join.withNewChildren(CollectionConverters.asScala(List.of(new Filter(mightContain, target), source)).toList());
  }

  private static boolean isFloeMerge(Object relation) {
    return relation instanceof DataSourceV2Relation v2
        && v2.table() instanceof RowLevelOperationTable operationTable
        && operationTable.operation() instanceof PositionDeltaOperation operation
        && operation.command() == RowLevelOperation.Command.MERGE;
  }

  /** Whether the plan scans the MERGE's target table (the row-level operation's view of it). */
  private static boolean readsMergeTarget(LogicalPlan plan) {
    if (isFloeMerge(plan) || plan instanceof DataSourceV2ScanRelation scan && isFloeMerge(scan.relation())) {
      return true;
    }
    for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
      if (readsMergeTarget(child)) {
        return true;
      }
    }
    return false;
  }

  /** Whether this rule already filtered the plan (the optimizer runs it to a fixed point). */
  private static boolean hasKeyFilter(LogicalPlan plan) {
    for (Expression e : CollectionConverters.asJava(plan.expressions())) {
      if (e.find(new AbstractFunction1<Expression, Object>() {
        @Override
        public Object apply(Expression x) {
          return x instanceof BloomFilterMightContain;
        }
      }).isDefined()) {
        return true;
      }
    }
    for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
      if (hasKeyFilter(child)) {
        return true;
      }
    }
    return false;
  }

  /** Every expression of every node: a source whose rows (or keys) may differ between its two
   * evaluations (a {@code rand()} filter, a UDF marked nondeterministic) could let the filter drop a
   * matching target row. A deterministic UDF (Python too) may be called again, as Spark's contract
   * for UDFs allows. */
  private static boolean deterministic(LogicalPlan plan) {
    for (Expression e : CollectionConverters.asJava(plan.expressions())) {
      if (!e.deterministic()) {
        return false;
      }
    }
    for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
      if (!deterministic(child)) {
        return false;
      }
    }
    return true;
  }

  private static boolean sizeAllows(LogicalPlan source, SQLConf conf) {
    long limit = conf.runtimeFilterCreationSideThreshold();
    BigInteger size = source.stats().sizeInBytes().bigInteger();
    return size.compareTo(BigInteger.valueOf(limit)) <= 0;
  }

  private static <T> Seq<T> emptySeq() {
    return CollectionConverters.asScala(new ArrayList<T>()).toList();
  }
}
