package io.floe.spark.extensions;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
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
import org.apache.spark.sql.execution.SparkPlan;
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
 * needs it, as the read's rows stream by (none is kept); a parent operator gets it as one
 * partition, computed by one task.
 */
public final class FloeLocalAggregateExec extends DriverResultExec {
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
  public String simpleString(int maxFields) {
    var util = org.apache.spark.sql.catalyst.util.package$.MODULE$;
    return "FloeLocalAggregate keys=" + util.truncatedString(grouping, "[", ", ", "]", maxFields) + ", functions="
        + util.truncatedString(functions, "[", ", ", "]", maxFields) + ", output="
        + util.truncatedString(output(), "[", ", ", "]", maxFields) + " (on the driver)";
  }

  /**
   * For a parent operator: one task reads and aggregates (the result is not computed on the driver
   * and shipped inside the task, which could outgrow a task's size with many groups).
   */
  @Override
  public RDD<InternalRow> doExecute() {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(sparkContext());
    if (!(child instanceof FloeLocalReadExec read)) { // not planned so; kept correct all the same
      return context.parallelize(Arrays.asList(rows()), 1).rdd();
    }
    TaskAggregate task = new TaskAggregate(aggregation(), read.source());
    read.postScanMetrics();
    return context.parallelize(List.of(0), 1).mapPartitions(task).rdd();
  }

  /** The result, computed on the driver; the input rows stream by and are not kept. */
  @Override
  protected InternalRow[] compute() {
    Fold fold = aggregation().fold();
    if (child instanceof FloeLocalReadExec read) {
      read.source().forEach(fold::add);
      read.postDriverRead(fold.inputRows);
    } else {
      for (InternalRow row : child.executeCollect()) {
        fold.add(row);
      }
    }
    return fold.result();
  }

  private Aggregation aggregation() {
    return new Aggregation(grouping, functions, results, child.output());
  }

  /** What to compute, over rows of {@code input}: serializable, so that it runs in a task as on the driver. */
  private record Aggregation(Seq<NamedExpression> grouping, Seq<AggregateExpression> functions,
      Seq<NamedExpression> results, Seq<Attribute> input) implements Serializable {
    Fold fold() {
      return new Fold(this);
    }
  }

  /**
   * One pass of an {@link Aggregation}: groups rows by an {@code UnsafeRow} key, folds each into
   * its group's buffer with the functions' update expressions, and projects the results. Without
   * grouping there is one group even for no rows ({@code count(*)} is 0). Grouped buffers are
   * {@code UnsafeRow}s when every buffer type fits one, as in Spark's hash aggregation (a decimal
   * sum past its precision becomes NULL there, then fails or stays NULL as Spark's does).
   */
  private static final class Fold {
    private final List<Attribute> buffer = new ArrayList<>();
    private final List<Expression> update = new ArrayList<>();
    private final List<Attribute> updateInput;
    private final MutableProjection init;
    private final MutableProjection finish;
    private final UnsafeProjection key;
    private final UnsafeProjection result;
    private final UnsafeProjection unsafeBuffer; // null: generic buffers
    private final int resultFields;
    private final boolean grouped;
    private final Map<UnsafeRow, InternalRow> groups = new LinkedHashMap<>();
    private final InternalRow single; // the one group's buffer without grouping, else null
    private final InternalRow empty = new GenericInternalRow(0);
    private final JoinedRow joined = new JoinedRow();
    private MutableProjection fold;
    private boolean compiled = false;
    long inputRows = 0;

    Fold(Aggregation spec) {
      List<Attribute> input = CollectionConverters.asJava(spec.input());
      List<Expression> initial = new ArrayList<>();
      List<Expression> evaluate = new ArrayList<>();
      List<Attribute> resultInput = new ArrayList<>();
      List<Expression> keys = new ArrayList<>();
      for (NamedExpression k : CollectionConverters.asJava(spec.grouping())) {
        keys.add((Expression) k); // every NamedExpression is an Expression
        resultInput.add(k.toAttribute());
      }
      boolean mutable = true;
      for (AggregateExpression function : CollectionConverters.asJava(spec.functions())) {
        DeclarativeAggregate declarative = (DeclarativeAggregate) function.aggregateFunction(); // planner checked
        for (Attribute a : CollectionConverters.asJava(declarative.aggBufferAttributes())) {
          buffer.add(a);
          mutable &= UnsafeRow.isMutable(a.dataType());
        }
        initial.addAll(CollectionConverters.asJava(declarative.initialValues()));
        update.addAll(CollectionConverters.asJava(declarative.updateExpressions()));
        evaluate.add(declarative.evaluateExpression());
        resultInput.add(function.resultAttribute());
      }
      List<Expression> resultExprs = new ArrayList<>();
      for (NamedExpression e : CollectionConverters.asJava(spec.results())) {
        resultExprs.add((Expression) e);
      }
      updateInput = new ArrayList<>(buffer);
      updateInput.addAll(input);
      grouped = !keys.isEmpty();
      init = projection(initial, List.of(), false);
      fold = projection(update, updateInput, false);
      finish = projection(evaluate, buffer, false);
      resultFields = evaluate.size();
      key = InterpretedUnsafeProjection.createProjection(bound(keys, input));
      key.initialize(0);
      result = InterpretedUnsafeProjection.createProjection(bound(resultExprs, resultInput));
      result.initialize(0);
      List<Expression> asIs = new ArrayList<>();
      for (int i = 0; i < buffer.size(); i++) {
        asIs.add(new BoundReference(i, buffer.get(i).dataType(), true));
      }
      unsafeBuffer = grouped && mutable && !buffer.isEmpty()
          ? InterpretedUnsafeProjection.createProjection(CollectionConverters.asScala(asIs).toList()) : null;
      if (unsafeBuffer != null) {
        unsafeBuffer.initialize(0);
      }
      single = grouped ? null : newBuffer(); // one row even for no input (count(*) is 0)
      if (single != null) {
        groups.put(key.apply(empty).copy(), single);
      }
    }

    /** Folds {@code row} (a row of the input, valid for as long as the fold) in; always true. */
    boolean add(InternalRow row) {
      inputRows++;
      if (!compiled && inputRows * update.size() >= COMPILE_ABOVE) {
        fold = projection(update, updateInput, true);
        compiled = true;
      }
      InternalRow state = single;
      if (state == null) {
        UnsafeRow k = key.apply(row);
        state = groups.get(k);
        if (state == null) {
          state = newBuffer();
          groups.put(k.copy(), state);
        }
      }
      fold.target(state).apply(joined.apply(state, row));
      return true;
    }

    private InternalRow newBuffer() {
      InternalRow state = new GenericInternalRow(buffer.size());
      init.target(state).apply(empty);
      return unsafeBuffer != null ? unsafeBuffer.apply(state).copy() : state;
    }

    InternalRow[] result() {
      List<InternalRow> out = new ArrayList<>(groups.size());
      for (Map.Entry<UnsafeRow, InternalRow> group : groups.entrySet()) {
        InternalRow values = new GenericInternalRow(resultFields);
        finish.target(values).apply(group.getValue());
        out.add(result.apply(joined.apply(group.getKey(), values)).copy());
      }
      return out.toArray(new InternalRow[0]);
    }
  }

  /** The one task of {@link #doExecute}: reads the scan and aggregates its rows. */
  private record TaskAggregate(Aggregation aggregation, FloeLocalReadExec.Source source)
      implements FlatMapFunction<java.util.Iterator<Integer>, InternalRow> {
    @Override
    public java.util.Iterator<InternalRow> call(java.util.Iterator<Integer> ignored) {
      Fold fold = aggregation.fold();
      source.forEach(fold::add);
      return Arrays.asList(fold.result()).iterator();
    }
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
