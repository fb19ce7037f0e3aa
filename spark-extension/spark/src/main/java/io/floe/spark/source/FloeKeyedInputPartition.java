package io.floe.spark.source;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.HasPartitionKey;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * The one input partition of a read that reports a {@link SingleTaskPartitioning}: the files to
 * read (a {@link FloeInputPartition} or {@link FloeCombinedInputPartition}) and the key they share.
 */
final class FloeKeyedInputPartition implements InputPartition, HasPartitionKey, Serializable {
  private final InputPartition files;
  private final InternalRow key;

  FloeKeyedInputPartition(InputPartition files, InternalRow key) {
    this.files = files;
    this.key = key;
  }

  /** The partition to read, without its key. */
  static InputPartition files(InputPartition partition) {
    return partition instanceof FloeKeyedInputPartition keyed ? keyed.files : partition;
  }

  @Override
  public InternalRow partitionKey() {
    return key;
  }

  @Override
  public String[] preferredLocations() {
    return files.preferredLocations();
  }
}
