package io.floe.spark.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads the planned partitions of a {@link FloeScan} in the calling thread (the driver's, or one
 * task's), one after the other, with the reader factory the scan gives Spark's tasks: the same files, the same deletes
 * applied, the same row-group and page skipping, the same metadata columns. For scans small enough
 * that a Spark job would spend more time being scheduled than reading (see the planner strategy
 * {@code FloeLocalReadStrategy}).
 */
public final class DriverRead {
  /** Receives the rows read; a row is valid only during the call (copy it to keep it). */
  @FunctionalInterface
  public interface RowSink {
    /** Takes {@code row}; returns false to stop reading. */
    boolean accept(InternalRow row);
  }

  private DriverRead() {}

  /**
   * Feeds every row of {@code partitions}, read with {@code factory} (a scan's, as its tasks get
   * them), to {@code sink}, until it says stop.
   */
  public static void read(PartitionReaderFactory factory, InputPartition[] partitions, RowSink sink) {
    try {
      for (InputPartition partition : partitions) {
        boolean more = factory.supportColumnarReads(partition)
            ? readBatches(factory.createColumnarReader(partition), sink)
            : readRows(factory.createReader(partition), sink);
        if (!more) {
          return;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  private static boolean readBatches(PartitionReader<ColumnarBatch> reader, RowSink sink) throws IOException {
    try (reader) {
      while (reader.next()) {
        Iterator<InternalRow> rows = reader.get().rowIterator();
        while (rows.hasNext()) {
          if (!sink.accept(rows.next())) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static boolean readRows(PartitionReader<InternalRow> reader, RowSink sink) throws IOException {
    try (reader) {
      while (reader.next()) {
        if (!sink.accept(reader.get())) {
          return false;
        }
      }
    }
    return true;
  }
}
