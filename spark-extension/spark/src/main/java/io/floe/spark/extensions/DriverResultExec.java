package io.floe.spark.extensions;

import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A node whose rows the driver computes itself when the query runs ({@link FloeLocalReadExec},
 * {@link FloeLocalAggregateExec}): {@code collect}, {@code take}, {@code tail} and
 * {@code toLocalIterator} return them without a Spark job; they are computed once per plan, at the
 * first call that needs them. A parent operator gets ONE partition ({@link #doExecute} is the
 * subclass's: one task).
 */
public abstract class DriverResultExec extends SparkPlan {
  private transient volatile InternalRow[] result = null;

  /** The node's rows (copies), computed on the driver. */
  protected abstract InternalRow[] compute();

  /** The rows, computed at the first call. */
  protected final synchronized InternalRow[] rows() {
    if (result == null) {
      result = compute();
    }
    return result;
  }

  /** The rows if already computed, else null. */
  protected final InternalRow[] computed() {
    return result;
  }

  /** One partition: an aggregate or join above needs no shuffle for this side. */
  @Override
  public Partitioning outputPartitioning() {
    return SinglePartition$.MODULE$;
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
}
