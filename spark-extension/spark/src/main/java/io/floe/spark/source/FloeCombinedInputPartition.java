package io.floe.spark.source;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Several small data files read one after the other by one task (see {@link FloeScan}): one task
 * per file would spend more time being scheduled than reading.
 */
final class FloeCombinedInputPartition implements InputPartition, Serializable {
  private final List<FloeInputPartition> files;

  FloeCombinedInputPartition(List<FloeInputPartition> files) {
    this.files = List.copyOf(files);
  }

  List<FloeInputPartition> files() {
    return files;
  }

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
