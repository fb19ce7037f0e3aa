package io.floe.spark.source;

import io.floe.format.OptionErrors;
import io.floe.format.metadata.TableProperties;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.FileSplits;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    Sizes sizes = Sizes.of(table, options);
    long total = 0;
    for (FileScanTask t : files) { // saturating: a huge open cost must not wrap around
      total = saturatedAdd(total, Math.max(t.file().fileSizeInBytes(), sizes.openCost()));
    }
    long tasks = sizes.tasks(total);
    long groupSize = Math.max(1, Math.min(sizes.maxSize(), Math.max(sizes.openCost(), ceilDiv(total, tasks))));
    List<Unit> units = new ArrayList<>();
    for (FileScanTask t : files) {
      for (FloeInputPartition piece : split(FloeInputPartition.of(t, partitionRow.apply(t)), t, groupSize,
          sizes.openCost())) {
        units.add(new Unit(List.of(piece), Math.max(piece.bytesRead(), sizes.openCost()), piece.bytesRead()));
      }
    }
    units.sort((a, b) -> Long.compare(b.bytes(), a.bytes())); // stable: files of equal size keep their order
    return packUnits(units, tasks, groupSize, sizes.maxSize());
  }

  /**
   * {@code files} packed as {@link #pack} packs them, except that the files of one group (equal
   * {@code groupOf} values) always go to the same input partition, whole: the read of a write whose
   * rows are clustered by values that each group's files share (see
   * {@code FloeClusteredInputWriteStrategy}). Null when a group's bytes exceed the split size (its
   * task would read more than a split's worth), or, with fewer groups than cores, one core's share
   * of the read, as Spark bounds the splits of a file source: {@code min(split-size,
   * max(open-file-cost, (bytes + open-file-cost of every file) / default parallelism))} (the other
   * cores would idle, where the shuffle it replaces spreads the read over them all). Groups are
   * dealt heaviest first (their weight counts each file as at least {@code open-file-cost}).
   */
  static InputPartition[] packGroups(TableView table, CaseInsensitiveStringMap options, List<FileScanTask> files,
      Function<FileScanTask, InternalRow> partitionRow, Function<FileScanTask, Object> groupOf) {
    if (files.isEmpty()) {
      return new InputPartition[0];
    }
    Sizes sizes = Sizes.of(table, options);
    Map<Object, List<FloeInputPartition>> groups = new LinkedHashMap<>();
    Map<Object, long[]> sums = new HashMap<>(); // per group: weight, bytes
    long total = 0;
    long spread = 0;
    for (FileScanTask t : files) {
      Object group = groupOf.apply(t);
      long size = t.file().fileSizeInBytes();
      long[] sum = sums.computeIfAbsent(group, g -> new long[2]);
      sum[0] = saturatedAdd(sum[0], Math.max(size, sizes.openCost()));
      sum[1] = saturatedAdd(sum[1], size);
      groups.computeIfAbsent(group, g -> new ArrayList<>()).add(FloeInputPartition.of(t, partitionRow.apply(t)));
      total = saturatedAdd(total, Math.max(size, sizes.openCost()));
      spread = saturatedAdd(spread, saturatedAdd(size, sizes.openCost()));
    }
    long limit = groups.size() >= sizes.parallelism() ? sizes.maxSize()
        : Math.min(sizes.maxSize(), Math.max(sizes.openCost(), spread / sizes.parallelism()));
    for (long[] sum : sums.values()) {
      if (sum[1] > limit) {
        return null;
      }
    }
    long tasks = sizes.tasks(total);
    long groupSize = Math.max(1, Math.min(sizes.maxSize(), Math.max(sizes.openCost(), ceilDiv(total, tasks))));
    List<Unit> units = new ArrayList<>();
    groups.forEach((group, pieces) -> units.add(new Unit(pieces, sums.get(group)[0], sums.get(group)[1])));
    units.sort((a, b) -> a.weight() != b.weight() ? Long.compare(b.weight(), a.weight())
        : Long.compare(b.bytes(), a.bytes()));
    return packUnits(units, tasks, groupSize, sizes.maxSize());
  }

  /** What one read's files are packed by: the split size and the cost of opening a file, and the cores. */
  private record Sizes(long maxSize, long openCost, int parallelism) {
    static Sizes of(TableView table, CaseInsensitiveStringMap options) {
      SparkSession spark = SparkSession.active();
      long maxSize = sizeSetting(table, options, "split-size", TableProperties.SPLIT_SIZE,
          "spark.sql.files.maxPartitionBytes", spark.conf().get("spark.sql.files.maxPartitionBytes", "134217728"));
      long openCost = sizeSetting(table, options, "file-open-cost", TableProperties.SPLIT_OPEN_FILE_COST,
          "spark.sql.files.openCostInBytes", spark.conf().get("spark.sql.files.openCostInBytes", "4194304"));
      return new Sizes(maxSize, openCost, Math.max(1, spark.sparkContext().defaultParallelism()));
    }

    /** Whole rounds of the cores for {@code total} weight: {@code rounds x parallelism} tasks. */
    long tasks(long total) {
      long rounds = Math.max(1, ceilDiv(total, saturatedMultiply(maxSize, parallelism)));
      return saturatedMultiply(rounds, parallelism);
    }
  }

  /** Files (or ranges of files) that one task reads together, their weight and their bytes. */
  private record Unit(List<FloeInputPartition> pieces, long weight, long bytes) {}

  /**
   * {@code units} (heaviest first) dealt into {@code tasks} groups when that fits, else packed in
   * turn into groups of {@code groupSize}.
   */
  private static InputPartition[] packUnits(List<Unit> units, long tasks, long groupSize, long maxSize) {
    if (units.size() == 1) {
      return new InputPartition[] {toPartition(units.get(0).pieces())};
    }
    if (units.size() > tasks) {
      InputPartition[] balanced = balanced(units, (int) tasks, maxSize);
      if (balanced != null) {
        return balanced;
      }
    }
    List<InputPartition> partitions = new ArrayList<>();
    List<FloeInputPartition> group = new ArrayList<>();
    long groupWeight = 0;
    for (Unit unit : units) {
      if (!group.isEmpty() && saturatedAdd(groupWeight, unit.weight()) > groupSize) {
        partitions.add(toPartition(group));
        group = new ArrayList<>();
        groupWeight = 0;
      }
      group.addAll(unit.pieces());
      groupWeight = saturatedAdd(groupWeight, unit.weight());
    }
    partitions.add(toPartition(group));
    return partitions.toArray(new InputPartition[0]);
  }

  /**
   * {@code units} (heaviest first) in exactly {@code tasks} groups, each unit going to the group
   * that weighs least so far; null when a group would outweigh {@code maxSize}. Packing in turn
   * fills groups of a task's share and leaves the remainder to one more group, a round of its own
   * on a cluster whose cores the other groups fill exactly (three tasks on two cores take two
   * rounds, two take one; seven take four, six take three).
   */
  private static InputPartition[] balanced(List<Unit> units, int tasks, long maxSize) {
    List<List<FloeInputPartition>> groups = new ArrayList<>();
    long[] weights = new long[tasks];
    // the lightest group first (ties: the lower index), so each placement costs log(tasks)
    PriorityQueue<Integer> lightest = new PriorityQueue<>(tasks,
        (a, b) -> weights[a] != weights[b] ? Long.compare(weights[a], weights[b]) : Integer.compare(a, b));
    for (int i = 0; i < tasks; i++) {
      groups.add(new ArrayList<>());
      lightest.add(i);
    }
    for (Unit unit : units) {
      int group = lightest.poll();
      weights[group] = saturatedAdd(weights[group], unit.weight());
      if (weights[group] > maxSize) {
        return null;
      }
      groups.get(group).addAll(unit.pieces());
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
