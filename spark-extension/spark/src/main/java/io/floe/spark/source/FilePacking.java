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
 * Packs the files of a read into input partitions so that the tasks fill whole rounds of the
 * cluster's cores. Files weigh their size but at least {@code open-file-cost}. The read takes
 * {@code rounds = ceil(total weight / (default parallelism x split-size))} rounds of tasks, at
 * least one, and a group holds about one task's share of the weight, {@code max(open-file-cost,
 * total weight / (rounds x default parallelism))}, never more than {@code split-size}. The files,
 * largest first, are dealt into exactly {@code rounds x default parallelism} groups, each file to
 * the lightest group so far, so that every round keeps every core busy. Packed in turn into groups
 * of {@code split-size}, as Spark packs the files of a plain Parquet scan, a read of 1.5 splits per
 * core on two cores makes three tasks: two rounds of a full split each, the second on one core.
 * Dealt into four groups, it takes two rounds of 0.75 split. When dealing would put more than
 * {@code split-size} in a group (a few large files), or when there are no more files (and ranges of
 * files) than groups, the files are packed in turn instead, each in the current group or, when it
 * is full, a new one. Many small files so cost a few tasks, not one each. A file larger than a
 * group is first cut into ranges of about a group each, at its row-group starts ({@code
 * split_offsets}) when known (see {@link FileSplits}), so that one large file is read by all cores,
 * as Spark splits a plain Parquet file. Sizes come from the read options {@code split-size} and
 * {@code file-open-cost}, the table properties {@code read.split.target-size} and {@code
 * read.split.open-file-cost}, or Spark's {@code spark.sql.files.maxPartitionBytes} and {@code
 * spark.sql.files.openCostInBytes}. Used by the batch scan and the streaming source alike.
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
    long rounds = Math.max(1, ceilDiv(total, saturatedMultiply(maxSize, parallelism)));
    long tasks = saturatedMultiply(rounds, parallelism);
    long groupSize = Math.max(1, Math.min(maxSize, Math.max(openCost, ceilDiv(total, tasks))));
    List<FloeInputPartition> pieces = new ArrayList<>();
    for (FileScanTask t : files) {
      pieces.addAll(split(FloeInputPartition.of(t, partitionRow.apply(t)), t, groupSize, openCost));
    }
    if (pieces.size() == 1) {
      return new InputPartition[] {pieces.get(0)};
    }
    pieces.sort((a, b) -> Long.compare(b.bytesRead(), a.bytesRead()));
    if (pieces.size() > tasks) {
      InputPartition[] balanced = balanced(pieces, (int) tasks, openCost, maxSize);
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
   * that weighs least so far; null when a group would outweigh {@code maxSize}. Packing in turn
   * fills groups of a task's share and leaves the remainder to one more group, a round of its own
   * on a cluster whose cores the other groups fill exactly (three tasks on two cores take two
   * rounds, two take one; seven take four, six take three).
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

  /** {@code a / b} rounded up, for positive {@code b} and non-negative {@code a}. */
  private static long ceilDiv(long a, long b) {
    return a / b + (a % b == 0 ? 0 : 1);
  }

  private static long saturatedMultiply(long a, long b) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE; // both are non-negative
    }
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
