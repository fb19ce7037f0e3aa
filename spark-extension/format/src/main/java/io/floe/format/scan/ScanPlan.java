package io.floe.format.scan;

import java.util.List;

/** The tasks of a scan and the counts of what planning pruned. */
public record ScanPlan(List<FileScanTask> tasks, ScanMetrics metrics) {
  public ScanPlan {
    tasks = List.copyOf(tasks);
  }
}
