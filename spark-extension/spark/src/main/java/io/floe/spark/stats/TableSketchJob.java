package io.floe.spark.stats;

import io.floe.format.sql.SqlTokens;
import io.floe.format.stats.ThetaSketches;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.Union;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One distributed pass over a read of a Floe table computing a theta sketch per column: each task
 * sketches its batches (the scan's ColumnarBatches when it is columnar, else its rows) and returns
 * the compact sketches; the driver merges them with a Union per column.
 */
final class TableSketchJob {
  private static final Logger LOG = LoggerFactory.getLogger(TableSketchJob.class);

  private TableSketchJob() {}

  /** The merged sketches of {@code columns} over every row of {@code rows}, by field id. */
  static Map<Integer, CompactSketch> run(Dataset<Row> rows, List<SketchColumn> columns) {
    Dataset<Row> selected = rows.selectExpr(columns.stream().map(c -> SqlTokens.quote(c.name())).toArray(String[]::new));
    SparkPlan scan = columnarScan(selected.queryExecution().executedPlan());
    SketchColumn[] specs = columns.toArray(new SketchColumn[0]);
    JavaRDD<byte[][]> perTask;
    int[] ordinals = scan == null ? null : ordinals(scan, specs);
    LOG.info("Sketching columns {} {}", columns.stream().map(SketchColumn::name).toList(),
        ordinals != null ? "batch by batch from " + scan.nodeName() : "row by row from " + selected.queryExecution()
            .executedPlan().nodeName());
    if (ordinals != null) {
      perTask = scan.executeColumnar().toJavaRDD().mapPartitions(new BatchSketcher(specs, ordinals));
    } else {
      perTask = selected.queryExecution().toRdd().toJavaRDD().mapPartitions(new RowSketcher(specs));
    }
    List<Union> unions = new ArrayList<>();
    for (int i = 0; i < specs.length; i++) {
      unions.add(ThetaSketches.newUnion());
    }
    for (byte[][] task : perTask.collect()) {
      for (int i = 0; i < specs.length; i++) {
        unions.get(i).union(ThetaSketches.fromBlob(task[i]));
      }
    }
    Map<Integer, CompactSketch> out = new LinkedHashMap<>();
    for (int i = 0; i < specs.length; i++) {
      out.put(specs[i].fieldId(), unions.get(i).getResult());
    }
    return out;
  }

  /**
   * The columnar scan under a plan that only converts its batches to rows (and maybe keeps or
   * reorders its columns), or null when the plan does more than that.
   */
  private static SparkPlan columnarScan(SparkPlan plan) {
    SparkPlan node = plan;
    while (true) {
      if (node instanceof InputAdapter) {
        node = ((InputAdapter) node).child();
      } else if (node.supportsColumnar()) {
        return node;
      } else if (node instanceof WholeStageCodegenExec) {
        node = ((WholeStageCodegenExec) node).child();
      } else if (node instanceof ColumnarToRowExec) {
        node = ((ColumnarToRowExec) node).child();
      } else if (node instanceof ProjectExec && onlyAttributes((ProjectExec) node)) {
        node = ((ProjectExec) node).child();
      } else {
        return null;
      }
    }
  }

  private static boolean onlyAttributes(ProjectExec project) {
    for (NamedExpression e : CollectionConverters.asJava(project.projectList())) {
      if (!(e instanceof Attribute)) {
        return false;
      }
    }
    return true;
  }

  /** The ordinal of each column in the scan's output (by name), or null if one is missing. */
  private static int[] ordinals(SparkPlan scan, SketchColumn[] columns) {
    List<Attribute> output = CollectionConverters.asJava(scan.output());
    int[] ordinals = new int[columns.length];
    for (int i = 0; i < columns.length; i++) {
      ordinals[i] = -1;
      for (int j = 0; j < output.size(); j++) {
        if (output.get(j).name().equals(columns[i].name())) {
          ordinals[i] = j;
          break;
        }
      }
      if (ordinals[i] < 0) {
        return null;
      }
    }
    return ordinals;
  }

  private static byte[][] compactAll(ColumnUpdater[] updaters) {
    byte[][] out = new byte[updaters.length][];
    for (int i = 0; i < updaters.length; i++) {
      out[i] = ThetaSketches.toBlob(updaters[i].sketch());
    }
    return out;
  }

  private static ColumnUpdater[] updaters(SketchColumn[] columns) {
    ColumnUpdater[] updaters = new ColumnUpdater[columns.length];
    for (int i = 0; i < columns.length; i++) {
      updaters[i] = new ColumnUpdater(columns[i]);
    }
    return updaters;
  }

  /** A task over columnar batches: each batch updates each column's sketch in one loop. */
  private static final class BatchSketcher implements FlatMapFunction<Iterator<ColumnarBatch>, byte[][]>, Serializable {
    private final SketchColumn[] columns;
    private final int[] ordinals;

    BatchSketcher(SketchColumn[] columns, int[] ordinals) {
      this.columns = columns;
      this.ordinals = ordinals;
    }

    @Override
    public Iterator<byte[][]> call(Iterator<ColumnarBatch> batches) {
      ColumnUpdater[] updaters = updaters(columns);
      while (batches.hasNext()) {
        ColumnarBatch batch = batches.next();
        int numRows = batch.numRows();
        for (int i = 0; i < updaters.length; i++) {
          updaters[i].update(batch.column(ordinals[i]), numRows);
        }
      }
      return Collections.singletonList(compactAll(updaters)).iterator();
    }
  }

  /** A task over rows (the selected columns, in order), for scans that are not columnar. */
  private static final class RowSketcher implements FlatMapFunction<Iterator<InternalRow>, byte[][]>, Serializable {
    private final SketchColumn[] columns;

    RowSketcher(SketchColumn[] columns) {
      this.columns = columns;
    }

    @Override
    public Iterator<byte[][]> call(Iterator<InternalRow> rows) {
      ColumnUpdater[] updaters = updaters(columns);
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        for (int i = 0; i < updaters.length; i++) {
          updaters[i].update(row, i);
        }
      }
      return Collections.singletonList(compactAll(updaters)).iterator();
    }
  }
}
