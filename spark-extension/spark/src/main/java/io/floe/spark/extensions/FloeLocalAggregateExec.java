package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.InterpretedMutableProjection;
import org.apache.spark.sql.catalyst.expressions.InterpretedUnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.catalyst.expressions.MutableProjection;
import org.apache.spark.sql.catalyst.expressions.MutableProjection$;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Tuple2;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An aggregate over a small Floe read ({@link FloeLocalReadExec}) computed on the driver when the
 * query runs: {@code SELECT count(*), sum(x) FROM t WHERE ...} over a few files returns without
 * a Spark job. {@link FloeLocalReadStrategy} plans it for declarative aggregate functions (count,
 * sum, avg, min, max, first, ...: each one's own initial, update and result expressions, the ones
 * Spark's aggregation evaluates), without DISTINCT or FILTER; grouping is by hash. EXPLAIN shows
 * it as {@code FloeLocalAggregate}. The result is computed once per plan, at the first call that
 * needs it; a parent operator gets it as one partition.
 */
public final class FloeLocalAggregateExec extends SparkPlan {
  private final Seq<NamedExpression> grouping;
  private final Seq<AggregateExpression> functions;
  private final Seq<NamedExpression> results;
  private final SparkPlan child;
  /**
   * Evaluations of update expressions (rows times buffer fields) from which the fold is compiled:
   * compiling costs about as much as a few hundred thousand interpreted evaluations save (tens of
   * milliseconds, once per distinct expression set: Spark caches the classes), and a literal in
   * an aggregate's argument changes the class.
   */
  private static final long COMPILE_ABOVE = 200_000L;
  private transient volatile InternalRow[] rows = null;

  /**
   * {@code results} (over the grouping attributes and the functions' result attributes, as
   * Spark's {@code PhysicalAggregation} gives them) of {@code functions} over the rows of
   * {@code child}, grouped by {@code grouping}. The parameters are the node's product elements,
   * in this order: Spark copies the node through this constructor.
   */
  public FloeLocalAggregateExec(Seq<NamedExpression> grouping, Seq<AggregateExpression> functions,
      Seq<NamedExpression> results, SparkPlan child) {
    this.grouping = grouping;
    this.functions = functions;
    this.results = results;
    this.child = child;
  }

  @Override
  public Seq<Attribute> output() {
    List<Attribute> out = new ArrayList<>();
    for (NamedExpression e : CollectionConverters.asJava(results)) {
      out.add(e.toAttribute());
    }
    return CollectionConverters.asScala(out).toList();
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.of(child)).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new FloeLocalAggregateExec(grouping, functions, results, newChildren.apply(0));
  }

  @Override
  public Partitioning outputPartitioning() {
    return SinglePartition$.MODULE$;
  }

  @Override
  public String simpleString(int maxFields) {
    var util = org.apache.spark.sql.catalyst.util.package$.MODULE$;
    return "FloeLocalAggregate keys=" + util.truncatedString(grouping, "[", ", ", "]", maxFields) + ", functions="
        + util.truncatedString(functions, "[", ", ", "]", maxFields) + ", output="
        + util.truncatedString(output(), "[", ", ", "]", maxFields) + " (on the driver)";
  }

  /** For a parent operator: the result, computed on the driver, as one partition. */
  @Override
  public RDD<InternalRow> doExecute() {
    return JavaSparkContext.fromSparkContext(sparkContext()).parallelize(Arrays.asList(rows()), 1).rdd();
  }

  @Override
  public InternalRow[] executeCollect() {
    return rows().clone();
  }

  @Override
  public InternalRow[] executeTake(int n) {
    InternalRow[] all = rows();
    return Arrays.copyOf(all, Math.min(Math.max(n, 0), all.length));
  }

  @Override
  public InternalRow[] executeTail(int n) {
    InternalRow[] all = rows();
    return Arrays.copyOfRange(all, Math.max(0, all.length - Math.max(n, 0)), all.length);
  }

  @Override
  public scala.collection.Iterator<InternalRow> executeToIterator() {
    return CollectionConverters.asScala(Arrays.asList(rows()).iterator());
  }

  @Override
  public Tuple2<Object, scala.collection.Iterator<InternalRow>> executeCollectIterator() {
    InternalRow[] all = rows();
    return new Tuple2<>((long) all.length, CollectionConverters.asScala(Arrays.asList(all).iterator()));
  }

  private synchronized InternalRow[] rows() {
    if (rows == null) {
      rows = aggregate(child.executeCollect()); // the read's rows are copies: values kept stay valid
    }
    return rows;
  }

  /**
   * Groups {@code input} (rows of the child's output) by the grouping expressions, folds each
   * group's rows into the functions' buffers with their update expressions, and projects the
   * results. Without grouping there is one group even for no rows ({@code count(*)} is 0).
   */
  private InternalRow[] aggregate(InternalRow[] input) {
    List<Attribute> childOutput = CollectionConverters.asJava(child.output());
    List<Attribute> buffer = new ArrayList<>();
    List<Expression> initial = new ArrayList<>();
    List<Expression> update = new ArrayList<>();
    List<Expression> evaluate = new ArrayList<>();
    List<Attribute> resultInput = new ArrayList<>();
    List<Expression> keys = new ArrayList<>();
    for (NamedExpression key : CollectionConverters.asJava(grouping)) {
      keys.add((Expression) key); // every NamedExpression is an Expression
      resultInput.add(key.toAttribute());
    }
    for (AggregateExpression function : CollectionConverters.asJava(functions)) {
      DeclarativeAggregate declarative = (DeclarativeAggregate) function.aggregateFunction(); // planner checked
      buffer.addAll(CollectionConverters.asJava(declarative.aggBufferAttributes()));
      initial.addAll(CollectionConverters.asJava(declarative.initialValues()));
      update.addAll(CollectionConverters.asJava(declarative.updateExpressions()));
      evaluate.add(declarative.evaluateExpression());
      resultInput.add(function.resultAttribute());
    }
    List<Attribute> updateInput = new ArrayList<>(buffer);
    updateInput.addAll(childOutput);
    MutableProjection init = projection(initial, List.of(), false);
    MutableProjection fold = projection(update, updateInput, (long) input.length * update.size() >= COMPILE_ABOVE);
    MutableProjection finish = projection(evaluate, buffer, false);
    UnsafeProjection key = InterpretedUnsafeProjection.createProjection(bound(keys, childOutput));
    List<Expression> resultExprs = new ArrayList<>();
    for (NamedExpression e : CollectionConverters.asJava(results)) {
      resultExprs.add((Expression) e);
    }
    UnsafeProjection result = InterpretedUnsafeProjection.createProjection(bound(resultExprs, resultInput));
    key.initialize(0);
    result.initialize(0);

    Map<UnsafeRow, InternalRow> groups = new LinkedHashMap<>();
    InternalRow empty = new GenericInternalRow(0);
    JoinedRow joined = new JoinedRow();
    for (InternalRow row : input) {
      UnsafeRow k = key.apply(row);
      InternalRow state = groups.get(k);
      if (state == null) {
        state = new GenericInternalRow(buffer.size());
        init.target(state).apply(empty);
        groups.put(k.copy(), state);
      }
      fold.target(state).apply(joined.apply(state, row));
    }
    if (groups.isEmpty() && keys.isEmpty()) {
      InternalRow state = new GenericInternalRow(buffer.size());
      init.target(state).apply(empty);
      groups.put(key.apply(empty).copy(), state);
    }
    List<InternalRow> out = new ArrayList<>(groups.size());
    for (Map.Entry<UnsafeRow, InternalRow> group : groups.entrySet()) {
      InternalRow values = new GenericInternalRow(evaluate.size());
      finish.target(values).apply(group.getValue());
      out.add(result.apply(joined.apply(group.getKey(), values)).copy());
    }
    return out.toArray(new InternalRow[0]);
  }

  /**
   * A projection of {@code exprs} over rows of {@code input}, initialized: generated code (or
   * Spark's interpreted fallback) when {@code compiled}, else interpreted.
   */
  private static MutableProjection projection(List<Expression> exprs, List<Attribute> input, boolean compiled) {
    Seq<Expression> e = CollectionConverters.asScala(exprs).toList();
    Seq<Attribute> in = CollectionConverters.asScala(input).toList();
    MutableProjection projection = compiled ? MutableProjection$.MODULE$.create(e, in)
        : new InterpretedMutableProjection(e, in);
    projection.initialize(0);
    return projection;
  }

  /** {@code exprs} with their attributes bound to ordinals of {@code input}. */
  private static Seq<Expression> bound(List<Expression> exprs, List<Attribute> input) {
    Seq<Expression> unbound = CollectionConverters.asScala(exprs).toList();
    return org.apache.spark.sql.catalyst.expressions.BindReferences$.MODULE$.bindReferences(unbound,
        org.apache.spark.sql.catalyst.expressions.package$.MODULE$.AttributeSeq(
            CollectionConverters.asScala(input).toList()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FloeLocalAggregateExec other && grouping.equals(other.grouping)
        && functions.equals(other.functions) && results.equals(other.results) && child.equals(other.child);
  }

  @Override
  public int hashCode() {
    return Objects.hash(grouping, functions, results, child);
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> grouping;
      case 1 -> functions;
      case 2 -> results;
      case 3 -> child;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof FloeLocalAggregateExec;
  }
}
