package io.floe.spark.extensions;

import io.floe.spark.write.DriverWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.InterpretedOrdering;
import org.apache.spark.sql.catalyst.expressions.InterpretedUnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An insert of a few rows that the query already holds (a {@code VALUES} list, literals), written
 * and committed by the driver when the statement runs, without a Spark job:
 * {@link FloeLocalWriteStrategy} plans it. The rows are projected as the query's projection says,
 * sorted as the write asks Spark to sort them within a task (partition values, then the table's
 * sort order), and written by {@link DriverWrite}: the same files and commit as one task of the
 * job would make. EXPLAIN shows it as {@code FloeLocalWrite}.
 */
public final class FloeLocalWriteExec extends DriverResultExec {
  private final String table;
  private final transient Write write;
  private final Seq<InternalRow> data;
  private final Seq<Attribute> dataOutput;
  private final Seq<NamedExpression> projectList;
  private final Seq<SortOrder> ordering;
  private final transient Runnable refreshCache;

  /**
   * Writes the rows of {@code data} (whose attributes are {@code dataOutput}), each projected by
   * {@code projectList} and all sorted by {@code ordering} (over the projected attributes; empty:
   * in their order), to {@code table} with {@code write}, then runs {@code refreshCache}. The
   * parameters are the node's product elements, in this order: Spark copies the node through
   * this constructor.
   */
  public FloeLocalWriteExec(String table, Write write, Seq<InternalRow> data, Seq<Attribute> dataOutput,
      Seq<NamedExpression> projectList, Seq<SortOrder> ordering, Runnable refreshCache) {
    this.table = table;
    this.write = write;
    this.data = data;
    this.dataOutput = dataOutput;
    this.projectList = projectList;
    this.ordering = ordering;
    this.refreshCache = refreshCache;
  }

  /** A write returns no rows. */
  @Override
  public Seq<Attribute> output() {
    return CollectionConverters.asScala(List.<Attribute>of()).toList();
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return this;
  }

  @Override
  public String simpleString(int maxFields) {
    return "FloeLocalWrite " + table + " (" + data.size() + (data.size() == 1 ? " row" : " rows")
        + ", written on the driver)";
  }

  /** What EXPLAIN FORMATTED and the SQL UI show of the node: the table and the row count, not the rows. */
  @Override
  public scala.collection.Iterator<Object> stringArgs() {
    return CollectionConverters.asScala(List.<Object>of(table, data.size() + " rows").iterator());
  }

  /** Writes and commits on the driver; a parent operator (there is none for a command) gets no row. */
  @Override
  protected InternalRow[] compute() {
    DriverWrite.run(write, rowsToWrite());
    refreshCache.run();
    return new InternalRow[0];
  }

  /**
   * The rows projected and sorted, all computed before anything is written: an expression that
   * fails (a value too long for a {@code VARCHAR}, a cast that overflows) fails the statement
   * before the write starts.
   */
  private List<InternalRow> rowsToWrite() {
    List<Attribute> input = CollectionConverters.asJava(dataOutput);
    List<Expression> exprs = new ArrayList<>();
    List<Attribute> projected = new ArrayList<>();
    for (NamedExpression named : CollectionConverters.asJava(projectList)) {
      exprs.add(FloeLocalReadExec.bind((Expression) named, input)); // every NamedExpression is an Expression
      projected.add(named.toAttribute());
    }
    UnsafeProjection project = InterpretedUnsafeProjection.createProjection(CollectionConverters.asScala(exprs).toList());
    project.initialize(0);
    List<InternalRow> rows = new ArrayList<>(data.size());
    for (InternalRow row : CollectionConverters.asJava(data)) {
      rows.add(project.apply(row).copy());
    }
    if (!ordering.isEmpty()) {
      List<SortOrder> bound = new ArrayList<>();
      for (SortOrder order : CollectionConverters.asJava(ordering)) {
        bound.add((SortOrder) FloeLocalReadExec.bind(order, projected));
      }
      InterpretedOrdering comparator = new InterpretedOrdering(CollectionConverters.asScala(bound).toList());
      rows.sort(comparator::compare);
    }
    return rows;
  }

  /** Only a command runs this node, through {@code executeCollect}; a parent would get an RDD of no partition. */
  @Override
  public RDD<InternalRow> doExecute() {
    rows();
    return sparkContext().emptyRDD(scala.reflect.ClassTag$.MODULE$.apply(InternalRow.class));
  }

  /** Equal when planned from the same write of the same rows. */
  @Override
  public boolean equals(Object o) {
    return o instanceof FloeLocalWriteExec other && write == other.write && table.equals(other.table)
        && data.equals(other.data) && dataOutput.equals(other.dataOutput) && projectList.equals(other.projectList)
        && ordering.equals(other.ordering);
  }

  @Override
  public int hashCode() {
    return Objects.hash(System.identityHashCode(write), table, dataOutput, projectList, ordering);
  }

  @Override
  public int productArity() {
    return 7;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> table;
      case 1 -> write;
      case 2 -> data;
      case 3 -> dataOutput;
      case 4 -> projectList;
      case 5 -> ordering;
      case 6 -> refreshCache;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof FloeLocalWriteExec;
  }
}
