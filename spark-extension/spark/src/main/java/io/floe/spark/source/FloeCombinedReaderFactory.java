package io.floe.spark.source;

import java.io.IOException;
import java.util.Iterator;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads a {@link FloeCombinedInputPartition} file after file with the readers of {@code files};
 * any other partition goes to {@code files} directly. Each file's reader is opened when the
 * previous one is exhausted and closed before the next opens.
 */
final class FloeCombinedReaderFactory implements PartitionReaderFactory {
  private final PartitionReaderFactory files;

  FloeCombinedReaderFactory(PartitionReaderFactory files) {
    this.files = files;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    if (partition instanceof FloeCombinedInputPartition) {
      return ((FloeCombinedInputPartition) partition).files().stream().allMatch(files::supportColumnarReads);
    }
    return files.supportColumnarReads(partition);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    if (partition instanceof FloeCombinedInputPartition) {
      return new Chained<>(((FloeCombinedInputPartition) partition).files().iterator(), files::createReader);
    }
    return files.createReader(partition);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    if (partition instanceof FloeCombinedInputPartition) {
      return new Chained<>(((FloeCombinedInputPartition) partition).files().iterator(),
          files::createColumnarReader);
    }
    return files.createColumnarReader(partition);
  }

  /** The rows or batches of several readers, one after the other. */
  private static final class Chained<T> implements PartitionReader<T> {
    private final Iterator<FloeInputPartition> remaining;
    private final Function<InputPartition, PartitionReader<T>> open;
    private PartitionReader<T> current = null;

    Chained(Iterator<FloeInputPartition> remaining, Function<InputPartition, PartitionReader<T>> open) {
      this.remaining = remaining;
      this.open = open;
    }

    @Override
    public boolean next() throws IOException {
      while (true) {
        if (current != null && current.next()) {
          return true;
        }
        if (current != null) {
          PartitionReader<T> done = current;
          current = null;
          done.close();
        }
        if (!remaining.hasNext()) {
          return false;
        }
        current = open.apply(remaining.next());
      }
    }

    @Override
    public T get() {
      if (current == null) {
        throw new IllegalStateException("No current value: call next() first");
      }
      return current.get();
    }

    @Override
    public void close() throws IOException {
      if (current != null) {
        PartitionReader<T> open = current;
        current = null;
        open.close();
      }
    }
  }
}
