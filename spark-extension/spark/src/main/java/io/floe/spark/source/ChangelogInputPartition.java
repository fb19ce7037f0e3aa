package io.floe.spark.source;

import java.io.Serializable;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One task of a change feed read ({@link FloeChangelogScan}): the rows of {@code rows} (a data file
 * read with the deletes that applied before, or for inserts with the commit's own deletes), with
 * the change type, ordinal and commit snapshot every row carries. When {@code after} is set (rows
 * the commit's new delete files removed), only the rows that reading {@code after} (the same file
 * with the commit's deletes added) no longer returns are emitted.
 */
record ChangelogInputPartition(FloeInputPartition rows, FloeInputPartition after, String changeType,
    int changeOrdinal, long commitSnapshotId) implements InputPartition, Serializable {

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
