package io.floe.format.maintenance;

import io.floe.format.partition.PartitionData;
import io.floe.format.scan.FileScanTask;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Chooses what rewrite_data_files rewrites, as Iceberg's size-based planner does: a file is a
 * candidate when it is smaller than {@code min-file-size-bytes}, larger than
 * {@code max-file-size-bytes}, has at least {@code delete-file-threshold} delete files, or
 * {@code rewrite-all} is set. Candidates are grouped by partition (spec id and partition tuple) and
 * bin-packed into groups of at most {@code max-file-group-size-bytes}. A group is rewritten when it
 * has enough files ({@code min-input-files}, at least two), more than a target file's worth of
 * data in several files, more than the maximum file size, or a file with too many deletes.
 */
public final class FileGroupPlanner {
  private final RewriteOptions options;

  public FileGroupPlanner(RewriteOptions options) {
    this.options = options;
  }

  /** One group: files of one partition rewritten together, and how many files to write. */
  public record FileGroup(List<FileScanTask> tasks, long bytes, int outputFiles) {
  }

  private record PartitionKey(int specId, PartitionData partition) {
  }

  public List<FileGroup> plan(List<FileScanTask> tasks) {
    Map<PartitionKey, List<FileScanTask>> byPartition = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      if (isCandidate(task)) {
        byPartition.computeIfAbsent(new PartitionKey(task.spec().specId(), task.file().partition()),
            k -> new ArrayList<>()).add(task);
      }
    }
    List<FileGroup> groups = new ArrayList<>();
    for (List<FileScanTask> partitionTasks : byPartition.values()) {
      for (List<FileScanTask> bin : binPack(partitionTasks)) {
        long bytes = bin.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
        if (shouldRewrite(bin, bytes)) {
          groups.add(new FileGroup(List.copyOf(bin), bytes, outputFiles(bytes)));
        }
      }
    }
    return groups;
  }

  private boolean isCandidate(FileScanTask task) {
    long size = task.file().fileSizeInBytes();
    return options.rewriteAll() || size < options.minFileSize() || size > options.maxFileSize()
        || tooManyDeletes(task);
  }

  private boolean tooManyDeletes(FileScanTask task) {
    return task.deletes().size() >= options.deleteFileThreshold();
  }

  /** First fit, largest files first, into bins of at most max-file-group-size-bytes. */
  private List<List<FileScanTask>> binPack(List<FileScanTask> tasks) {
    List<FileScanTask> sorted = new ArrayList<>(tasks);
    sorted.sort(Comparator.comparingLong((FileScanTask t) -> t.file().fileSizeInBytes()).reversed());
    List<List<FileScanTask>> bins = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    for (FileScanTask task : sorted) {
      long size = task.file().fileSizeInBytes();
      int fit = -1;
      for (int i = 0; i < bins.size() && fit < 0; i++) {
        if (sizes.get(i) + size <= options.maxFileGroupSize()) {
          fit = i;
        }
      }
      if (fit < 0) {
        bins.add(new ArrayList<>());
        sizes.add(0L);
        fit = bins.size() - 1;
      }
      bins.get(fit).add(task);
      sizes.set(fit, sizes.get(fit) + size);
    }
    return bins;
  }

  private boolean shouldRewrite(List<FileScanTask> group, long bytes) {
    if (options.rewriteAll()) {
      return true;
    }
    boolean several = group.size() > 1;
    return (several && group.size() >= options.minInputFiles())
        || (several && bytes > options.targetFileSize())
        || bytes > options.maxFileSize()
        || group.stream().anyMatch(this::tooManyDeletes);
  }

  /**
   * How many files {@code bytes} of input become: whole target-size files, plus one for a remainder
   * above the minimum file size; a small remainder is spread over the others unless that makes
   * them more than 10% above the target (or above the maximum).
   */
  public int outputFiles(long bytes) {
    long target = options.targetFileSize();
    long whole = bytes / target;
    if (whole == 0) {
      return 1;
    }
    long remainder = bytes % target;
    if (remainder > options.minFileSize()) {
      return (int) Math.min(Integer.MAX_VALUE, whole + 1);
    }
    long spread = bytes / whole;
    boolean fits = spread < Math.min((long) (target * 1.1), options.writerFileSize());
    return (int) Math.min(Integer.MAX_VALUE, fits ? whole : whole + 1);
  }
}
