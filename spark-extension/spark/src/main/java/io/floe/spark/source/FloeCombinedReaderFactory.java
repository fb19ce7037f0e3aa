package io.floe.spark.source;

import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads a {@link FloeCombinedInputPartition} file after file with the readers of {@code files};
 * any other partition goes to {@code files} directly (a {@link FloeKeyedInputPartition} without its key). Each file's reader is opened when the
 * previous one is exhausted and closed before the next opens. The files of a task share one
 * {@link DeleteLoader.TaskDeletes}, so that a delete file several of them need is read once.
 */
final class FloeCombinedReaderFactory implements PartitionReaderFactory {
  private final PartitionReaderFactory files;

  FloeCombinedReaderFactory(PartitionReaderFactory files) {
    this.files = files;
  }

  @Override
  public boolean supportColumnarReads(InputPartition keyed) {
    InputPartition partition = FloeKeyedInputPartition.files(keyed);
    if (partition instanceof FloeCombinedInputPartition) {
      return ((FloeCombinedInputPartition) partition).files().stream().allMatch(files::supportColumnarReads);
    }
    return files.supportColumnarReads(partition);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition keyed) {
    InputPartition partition = FloeKeyedInputPartition.files(keyed);
    if (partition instanceof FloeCombinedInputPartition combined) {
      if (files instanceof FloeReaderFactory floe) {
        return new Chained<>(combined.files(), floe.taskDeletes(combined.files()), floe::createReader);
      }
      return new Chained<>(combined.files(), null, (file, deletes) -> files.createReader(file));
    }
    return files.createReader(partition);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition keyed) {
    InputPartition partition = FloeKeyedInputPartition.files(keyed);
    if (partition instanceof FloeCombinedInputPartition combined) {
      if (files instanceof FloeReaderFactory floe) {
        return new Chained<>(combined.files(), floe.taskDeletes(combined.files()), floe::createColumnarReader);
      }
      return new Chained<>(combined.files(), null, (file, deletes) -> files.createColumnarReader(file));
    }
    return files.createColumnarReader(partition);
  }

  /** The rows or batches of several readers, one after the other. */
  private static final class Chained<T> implements PartitionReader<T> {
    private final Iterator<FloeInputPartition> remaining;
    private final DeleteLoader.TaskDeletes deletes;
    private final BiFunction<InputPartition, DeleteLoader.TaskDeletes, PartitionReader<T>> open;
    private PartitionReader<T> current = null;

    Chained(List<FloeInputPartition> files, DeleteLoader.TaskDeletes deletes,
        BiFunction<InputPartition, DeleteLoader.TaskDeletes, PartitionReader<T>> open) {
      this.remaining = files.iterator();
      this.deletes = deletes;
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
        current = open.apply(remaining.next(), deletes);
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
      try {
        if (current != null) {
          PartitionReader<T> open = current;
          current = null;
          open.close();
        }
      } finally {
        if (deletes != null) {
          deletes.close();
        }
      }
    }
  }
}
