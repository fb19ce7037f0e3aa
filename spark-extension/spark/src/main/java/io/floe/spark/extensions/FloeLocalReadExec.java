package io.floe.spark.extensions;

import io.floe.spark.source.DriverRead;
import io.floe.spark.source.FloeScan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
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
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.execution.SQLExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import scala.Option;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractPartialFunction;

/**
 * A small Floe scan (with the filter and projection above it) read on the driver when the query
 * runs: {@code collect}, {@code take} and {@code tail} return its rows without a Spark job, and a
 * parent operator gets them as one partition, read by one task. {@link FloeLocalReadStrategy} plans it; EXPLAIN shows
 * it as {@code FloeLocalRead} with the scan's description. The rows are read once per plan, from
 * the snapshot the scan was planned on, at the first call that needs them.
 */
public final class FloeLocalReadExec extends DriverResultExec {
  private final Seq<Attribute> output;
  private final transient FloeScan scan;
  private final Seq<Attribute> scanOutput;
  private final Option<Expression> condition;
  private final Seq<NamedExpression> projectList;
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
    List<Expression> produced = new ArrayList<>(CollectionConverters.asJava(scanOutput));
    produced.addAll(CollectionConverters.asJava(output));
    return AttributeSet.apply(CollectionConverters.asScala(produced));
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return this;
  }

  /**
   * {@code numOutputRows}, and the scan's planning metrics (manifests and data files scanned and
   * skipped, bytes to read: {@code FloeScanMetrics}) under the same names as on a job's
   * {@code BatchScan}, so the SQL UI and the executed plan show them whichever way the scan is read.
   */
  @Override
  public Map<String, SQLMetric> metrics() {
    if (metrics == null) {
      java.util.Map<String, SQLMetric> all = new java.util.LinkedHashMap<>();
      all.put("numOutputRows", SQLMetrics.createMetric(sparkContext(), "number of output rows"));
      if (scan != null) { // null in a copy deserialized in a task, which reports no metric
        for (CustomMetric metric : scan.supportedCustomMetrics()) {
          all.put(metric.name(), SQLMetrics.createV2CustomMetric(sparkContext(), metric));
        }
      }
      metrics = CollectionConverters.asScala(all).toMap(scala.$less$colon$less$.MODULE$.refl());
    }
    return metrics;
  }

  /**
   * Sets the scan's planning metrics from {@code FloeScan.reportDriverMetrics} (its input
   * partitions are planned by now) and posts them, with {@code more}, as the driver's own updates:
   * no task reports them, and the UI shows only what is posted.
   */
  private void postDriverMetrics(List<SQLMetric> more) {
    List<SQLMetric> posted = new ArrayList<>(more);
    for (CustomTaskMetric value : scan.reportDriverMetrics()) {
      Option<SQLMetric> metric = metrics().get(value.name());
      if (metric.isDefined()) {
        metric.get().set(value.value());
        posted.add(metric.get());
      }
    }
    SQLMetrics.postDriverMetricUpdates(sparkContext(),
        sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY()),
        CollectionConverters.asScala(posted).toSeq());
  }

  @Override
  public String simpleString(int maxFields) {
    String filter = condition.isDefined() ? " condition=" + condition.get().sql() : "";
    return "FloeLocalRead " + org.apache.spark.sql.catalyst.util.package$.MODULE$.truncatedString(output, "[", ", ",
        "]", maxFields) + " " + (scan != null ? scan.description() : "") + filter + " (read on the driver)";
  }

  /**
   * For a parent operator: one task reads the scan's partitions (the rows are not read on the
   * driver and shipped inside the task, which could outgrow a task's size with long values).
   */
  @Override
  public RDD<InternalRow> doExecute() {
    TaskRead read = new TaskRead(source(), longMetric("numOutputRows"));
    postScanMetrics();
    return JavaSparkContext.fromSparkContext(sparkContext()).parallelize(List.of(0), 1).mapPartitions(read).rdd();
  }

  /**
   * What this node reads, as an object that reads it anywhere (the driver, or one task): the scan's
   * partitions and reader factory, with the filter and projection bound.
   */
  Source source() {
    InputPartition[] partitions = scan.planInputPartitions();
    // a scan that planned no file (an index or the files' bounds proved no row matches, or the
    // table is empty) reads nothing: no reader factory, which copies the Hadoop configuration
    return new Source(reading(), partitions.length == 0 ? null : scan.createReaderFactory(), partitions);
  }

  /** Posts the scan's planning metrics (for a read done by a task, which reports its rows). */
  void postScanMetrics() {
    postDriverMetrics(List.of());
  }

  /** Records a driver read of {@code rows} output rows in the node's and the scan's metrics. */
  void postDriverRead(long rows) {
    SQLMetric numOutputRows = longMetric("numOutputRows");
    numOutputRows.set(rows);
    postDriverMetrics(List.of(numOutputRows));
  }

  /** A take before the rows are read reads only as many. */
  @Override
  public InternalRow[] executeTake(int n) {
    InternalRow[] read = computed();
    return read != null ? super.executeTake(n) : readOnDriver(n);
  }

  @Override
  protected InternalRow[] compute() {
    return readOnDriver(Integer.MAX_VALUE);
  }

  /** The filter and projection, bound to the rows the scan reads. */
  private Reading reading() {
    List<Attribute> input = CollectionConverters.asJava(scanOutput);
    List<Expression> exprs = new ArrayList<>();
    for (NamedExpression named : CollectionConverters.asJava(projectList)) {
      exprs.add(bind((Expression) named, input)); // every NamedExpression is an Expression
    }
    return new Reading(condition.isDefined() ? bind(condition.get(), input) : null, exprs);
  }

  /** At most {@code limit} rows of the result, read now, on the driver. */
  private InternalRow[] readOnDriver(int limit) {
    List<InternalRow> out = new ArrayList<>();
    if (limit > 0) {
      source().forEach(row -> {
        out.add(row);
        return out.size() < limit;
      });
    }
    postDriverRead(out.size());
    return out.toArray(new InternalRow[0]);
  }

  /**
   * The rows of a small scan that a filter keeps, projected: serializable, so that it reads in a
   * task as on the driver. {@code factory} is null where there is no partition to read.
   */
  record Source(Reading reading, PartitionReaderFactory factory, InputPartition[] partitions) implements Serializable {
    /** Feeds each projected row (a copy: it stays valid) to {@code sink} until it returns false. */
    void forEach(java.util.function.Predicate<InternalRow> sink) {
      reading.forEach(factory, partitions, sink);
    }
  }

  /** Reads rows through a filter and a projection (bound expressions: it travels to tasks too). */
  private record Reading(Expression condition, List<Expression> projection) implements Serializable {
    /** Feeds each projected row (a copy) of {@code partitions} that the condition keeps to {@code sink}. */
    void forEach(PartitionReaderFactory factory, InputPartition[] partitions,
        java.util.function.Predicate<InternalRow> sink) {
      if (partitions.length == 0) {
        return; // nothing to read: no filter or projection to set up either
      }
      BasePredicate keep = condition != null ? Predicate.createInterpreted(condition) : null;
      if (keep != null) {
        keep.initialize(0);
      }
      UnsafeProjection project = InterpretedUnsafeProjection.createProjection(
          CollectionConverters.asScala(projection).toList());
      project.initialize(0);
      DriverRead.read(factory, partitions, row -> {
        if (keep != null && !keep.eval(row)) {
          return true; // not kept: read on
        }
        return sink.test(project.apply(row).copy());
      });
    }
  }

  /** The one task of {@link #doExecute}. */
  private record TaskRead(Source source, SQLMetric numOutputRows)
      implements FlatMapFunction<java.util.Iterator<Integer>, InternalRow> {
    @Override
    public java.util.Iterator<InternalRow> call(java.util.Iterator<Integer> ignored) {
      List<InternalRow> rows = new ArrayList<>();
      source.forEach(rows::add);
      numOutputRows.add(rows.size());
      return rows.iterator();
    }
  }

  /** {@code e} with each attribute of {@code input} replaced by its ordinal in the rows read. */
  static Expression bind(Expression e, List<Attribute> input) {
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
          throw new IllegalStateException("Attribute " + attribute + " is not among the input columns " + input);
        }
        return otherwise.apply(x);
      }
    });
  }

  /**
   * Equal when planned from the same scan with the same filter, projection and attributes: Spark
   * compares plans (and their canonical forms) to reuse exchanges and broadcasts, and dynamic
   * partition pruning needs the build side it plans again to equal the join's.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof FloeLocalReadExec other && scan == other.scan && output.equals(other.output)
        && scanOutput.equals(other.scanOutput) && condition.equals(other.condition)
        && projectList.equals(other.projectList);
  }

  @Override
  public int hashCode() {
    return Objects.hash(System.identityHashCode(scan), output, scanOutput, condition, projectList);
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
