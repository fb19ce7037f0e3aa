package io.floe.format.scan;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.partition.PartitionSpec;
import java.util.List;

/** One data file to read, the delete files that apply to it, and its partition spec. */
public record FileScanTask(DataFile file, List<DeleteFile> deletes, PartitionSpec spec, long dataSequenceNumber) {
  public FileScanTask {
    deletes = List.copyOf(deletes);
  }
}
