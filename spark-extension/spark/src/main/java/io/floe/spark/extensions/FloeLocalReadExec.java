package io.floe.spark.extensions;

import io.floe.spark.source.DriverRead;
import io.floe.spark.source.FloeScan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.InterpretedUnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Predicate;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import scala.Option;
import scala.Tuple2;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.runtime.AbstractPartialFunction;

/**
 * A small Floe scan (with the filter and projection above it) read on the driver when the query
 * runs: {@code collect}, {@code take} and {@code tail} return its rows without a Spark job, and a
 * parent operator gets them as one partition. {@link FloeLocalReadStrategy} plans it; EXPLAIN shows
 * it as {@code FloeLocalRead} with the scan's description. The rows are read once per plan, from
 * the snapshot the scan was planned on, at the first call that needs them.
 */
public final class FloeLocalReadExec extends SparkPlan {
  private final Seq<Attribute> output;
  private final transient FloeScan scan;
  private final Seq<Attribute> scanOutput;
  private final Option<Expression> condition;
  private final Seq<NamedExpression> projectList;
  private transient InternalRow[] rows = null;
  private transient Map<String, SQLMetric> metrics = null;

  /**
   * {@code projectList} (producing {@code output}) over the rows of {@code scan} (whose attributes
   * are {@code scanOutput}) that {@code condition} keeps. The parameters are the node's product
   * elements, in this order: Spark copies the node through this constructor.
   */
  public FloeLocalReadExec(Seq<Attribute> output, FloeScan scan, Seq<Attribute> scanOutput,
      Option<Expression> condition, Seq<NamedExpression> projectList) {
    this.output = output;
    this.scan = scan;
    this.scanOutput = scanOutput;
    this.condition = condition;
    this.projectList = projectList;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public AttributeSet producedAttributes() {
    return AttributeSet.apply(CollectionConverters.asScala(new ArrayList<Expression>(
        CollectionConverters.asJava(scanOutput))));
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return this;
  }

  /** One partition (see {@link #doExecute}): an aggregate or join above needs no shuffle for this side. */
  @Override
  public Partitioning outputPartitioning() {
    return SinglePartition$.MODULE$;
  }

  @Override
  public Map<String, SQLMetric> metrics() {
    if (metrics == null) {
      metrics = CollectionConverters.asScala(java.util.Map.of("numOutputRows",
          SQLMetrics.createMetric(sparkContext(), "number of output rows"))).toMap(scala.$less$colon$less$.MODULE$.refl());
    }
    return metrics;
  }

  @Override
  public String simpleString(int maxFields) {
    String filter = condition.isDefined() ? " condition=" + condition.get().sql() : "";
    return "FloeLocalRead " + org.apache.spark.sql.catalyst.util.package$.MODULE$.truncatedString(output, "[", ", ",
        "]", maxFields) + " " + scan.description() + filter + " (read on the driver)";
  }

  @Override
  public RDD<InternalRow> doExecute() {
    InternalRow[] all = rows();
    return sparkContext().parallelize(CollectionConverters.asScala(Arrays.asList(all)).toSeq(), 1,
        ClassTag.apply(InternalRow.class));
  }

  @Override
  public InternalRow[] executeCollect() {
    return rows().clone();
  }

  @Override
  public InternalRow[] executeTake(int n) {
    if (rows != null) {
      return Arrays.copyOf(rows, Math.min(n, rows.length));
    }
    return read(n);
  }

  @Override
  public InternalRow[] executeTail(int n) {
    InternalRow[] all = rows();
    return Arrays.copyOfRange(all, Math.max(0, all.length - n), all.length);
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
      rows = read(Integer.MAX_VALUE);
    }
    return rows;
  }

  /** At most {@code limit} rows of the result, read now. */
  private InternalRow[] read(int limit) {
    List<Attribute> input = CollectionConverters.asJava(scanOutput);
    BasePredicate keep = condition.isDefined() ? Predicate.createInterpreted(bind(condition.get(), input)) : null;
    if (keep != null) {
      keep.initialize(0);
    }
    List<Expression> exprs = new ArrayList<>();
    for (NamedExpression named : CollectionConverters.asJava(projectList)) {
      exprs.add(bind((Expression) named, input)); // every NamedExpression is an Expression
    }
    UnsafeProjection project = InterpretedUnsafeProjection.createProjection(
        CollectionConverters.asScala(exprs).toList());
    project.initialize(0);
    List<InternalRow> out = new ArrayList<>();
    if (limit > 0) {
      DriverRead.read(scan, row -> {
        if (keep == null || keep.eval(row)) {
          out.add(project.apply(row).copy());
        }
        return out.size() < limit;
      });
    }
    longMetric("numOutputRows").add(out.size());
    return out.toArray(new InternalRow[0]);
  }

  /** {@code e} with each attribute of {@code input} replaced by its ordinal in the rows read. */
  private static Expression bind(Expression e, List<Attribute> input) {
    return e.transform(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression x) {
        return x instanceof Attribute;
      }

      @Override
      public <A1 extends Expression, B1> B1 applyOrElse(A1 x, scala.Function1<A1, B1> otherwise) {
        if (x instanceof Attribute attribute) {
          for (int i = 0; i < input.size(); i++) {
            if (input.get(i).exprId().equals(attribute.exprId())) {
              @SuppressWarnings("unchecked")
              B1 bound = (B1) new BoundReference(i, attribute.dataType(), input.get(i).nullable());
              return bound;
            }
          }
          throw new IllegalStateException("Attribute " + attribute + " is not among the scan's columns " + input);
        }
        return otherwise.apply(x);
      }
    });
  }

  @Override
  public int productArity() {
    return 5;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> output;
      case 1 -> scan;
      case 2 -> scanOutput;
      case 3 -> condition;
      case 4 -> projectList;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof FloeLocalReadExec;
  }
}
