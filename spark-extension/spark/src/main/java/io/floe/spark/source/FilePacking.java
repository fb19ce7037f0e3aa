package io.floe.spark.source;

import io.floe.format.OptionErrors;
import io.floe.format.metadata.TableProperties;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.FileSplits;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Function;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Packs the files of a read into input partitions as Spark packs the files of a plain Parquet scan:
 * files weigh their size but at least {@code open-file-cost}, a group holds at most
 * {@code min(split-size, max(open-file-cost, total weight / default parallelism))}, and files are
 * placed largest first, each in the current group or, when it is full, a new one. A read smaller
 * than the cluster (total weight over default parallelism within {@code split-size}) is instead
 * dealt into exactly as many groups as Spark's default parallelism, each file to the lightest
 * group so far, so that it runs in one round of tasks. Many small files
 * so cost a few tasks, not one each, while a read smaller than the cluster still gets a task per
 * core. A file larger than a group is first cut into ranges of about a group each, at its row-group
 * starts ({@code split_offsets}) when known (see {@link FileSplits}), so that one large file is read
 * by all cores, as Spark splits a plain Parquet file. Sizes come from the read options {@code split-size} and {@code file-open-cost}, the table
 * properties {@code read.split.target-size} and {@code read.split.open-file-cost}, or Spark's
 * {@code spark.sql.files.maxPartitionBytes} and {@code spark.sql.files.openCostInBytes}. Used by
 * the batch scan and the streaming source alike.
 */
final class FilePacking {
  private FilePacking() {}

  /** {@code tasks} packed into input partitions; {@code partitionRow} gives each file's {@code _partition} row or null. */
  static InputPartition[] pack(TableView table, CaseInsensitiveStringMap options, List<FileScanTask> files,
      Function<FileScanTask, InternalRow> partitionRow) {
    if (files.isEmpty()) {
      return new InputPartition[0];
    }
    SparkSession spark = SparkSession.active();
    long maxSize = sizeSetting(table, options, "split-size", TableProperties.SPLIT_SIZE,
        "spark.sql.files.maxPartitionBytes", spark.conf().get("spark.sql.files.maxPartitionBytes", "134217728"));
    long openCost = sizeSetting(table, options, "file-open-cost", TableProperties.SPLIT_OPEN_FILE_COST,
        "spark.sql.files.openCostInBytes", spark.conf().get("spark.sql.files.openCostInBytes", "4194304"));
    long total = 0;
    for (FileScanTask t : files) { // saturating: a huge open cost must not wrap around
      total = saturatedAdd(total, Math.max(t.file().fileSizeInBytes(), openCost));
    }
    int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
    long groupSize = Math.max(1, Math.min(maxSize, Math.max(openCost, total / parallelism)));
    List<FloeInputPartition> pieces = new ArrayList<>();
    for (FileScanTask t : files) {
      pieces.addAll(split(FloeInputPartition.of(t, partitionRow.apply(t)), t, groupSize, openCost));
    }
    if (pieces.size() == 1) {
      return new InputPartition[] {pieces.get(0)};
    }
    pieces.sort((a, b) -> Long.compare(b.bytesRead(), a.bytesRead()));
    if (total / parallelism <= maxSize && pieces.size() > parallelism) {
      InputPartition[] balanced = balanced(pieces, parallelism, openCost, maxSize);
      if (balanced != null) {
        return balanced;
      }
    }
    List<InputPartition> partitions = new ArrayList<>();
    List<FloeInputPartition> group = new ArrayList<>();
    long groupWeight = 0;
    for (FloeInputPartition piece : pieces) {
      long weight = Math.max(piece.bytesRead(), openCost);
      if (!group.isEmpty() && saturatedAdd(groupWeight, weight) > groupSize) {
        partitions.add(toPartition(group));
        group = new ArrayList<>();
        groupWeight = 0;
      }
      group.add(piece);
      groupWeight += weight;
    }
    partitions.add(toPartition(group));
    return partitions.toArray(new InputPartition[0]);
  }

  /**
   * {@code pieces} (largest first) in exactly {@code tasks} groups, each piece going to the group
   * that weighs least so far; null when a group would outweigh {@code maxSize}. For a read smaller
   * than the cluster: packing in turn fills groups of a core's share and leaves the remainder
   * to one more group, a second wave of a single task on a cluster with as many cores as groups
   * (three tasks on two cores take two rounds, two take one).
   */
  private static InputPartition[] balanced(List<FloeInputPartition> pieces, int tasks, long openCost, long maxSize) {
    List<List<FloeInputPartition>> groups = new ArrayList<>();
    long[] weights = new long[tasks];
    // the lightest group first (ties: the lower index), so each placement costs log(tasks)
    PriorityQueue<Integer> lightest = new PriorityQueue<>(tasks,
        (a, b) -> weights[a] != weights[b] ? Long.compare(weights[a], weights[b]) : Integer.compare(a, b));
    for (int i = 0; i < tasks; i++) {
      groups.add(new ArrayList<>());
      lightest.add(i);
    }
    for (FloeInputPartition piece : pieces) {
      int group = lightest.poll();
      weights[group] = saturatedAdd(weights[group], Math.max(piece.bytesRead(), openCost));
      if (weights[group] > maxSize) {
        return null;
      }
      groups.get(group).add(piece);
      lightest.add(group);
    }
    InputPartition[] partitions = new InputPartition[tasks];
    for (int i = 0; i < tasks; i++) {
      partitions[i] = toPartition(groups.get(i));
    }
    return partitions;
  }

  /** The file of {@code task}, or its ranges when it is larger than a group (see {@link FileSplits}). */
  private static List<FloeInputPartition> split(FloeInputPartition whole, FileScanTask task, long groupSize,
      long openCost) {
    long size = task.file().fileSizeInBytes();
    if (size <= groupSize) {
      return List.of(whole);
    }
    List<FileSplits.Range> ranges = FileSplits.split(size, task.file().splitOffsets(), groupSize, openCost);
    if (ranges.size() == 1) {
      return List.of(whole);
    }
    return ranges.stream().map(r -> whole.range(r.start(), r.length())).toList();
  }

  private static InputPartition toPartition(List<FloeInputPartition> group) {
    return group.size() == 1 ? group.get(0) : new FloeCombinedInputPartition(group);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum; // both are non-negative
  }

  /** The read option, else the table property, else the Spark setting; a positive number of bytes. */
  private static long sizeSetting(TableView table, CaseInsensitiveStringMap options, String option, String property,
      String sparkSetting, String sparkValue) {
    String value = options.get(option);
    String source = "read option " + option;
    if (value == null) {
      value = table.metadata().properties().get(property);
      source = "table property " + property;
    }
    if (value == null) {
      value = sparkValue;
      source = "Spark setting " + sparkSetting;
    }
    long parsed;
    try {
      parsed = JavaUtils.byteStringAsBytes(value.trim()); // "134217728", "128m", ...
    } catch (RuntimeException e) {
      parsed = -1;
    }
    if (parsed > 0) {
      return parsed;
    }
    String message = "Invalid " + source + " of table " + table.name() + ": '" + value
        + "' (expected a positive number of bytes, such as 134217728 or 128m)";
    throw SparkExceptions.thrown(source.startsWith("table property ")
        ? OptionErrors.invalidProperty(table.name(), property, message)
        : OptionErrors.invalidOption(source.startsWith("read option ") ? option : sparkSetting, value, message));
  }
}
