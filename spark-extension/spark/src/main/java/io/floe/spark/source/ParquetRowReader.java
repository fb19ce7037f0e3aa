package io.floe.spark.source;

import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Row-at-a-time view of a batch reader, for callers that cannot take columnar batches. Each row
 * is copied out of the batch into an UnsafeRow, so it stays valid after the batch moves on; the
 * UnsafeRow object itself is reused by the next call (copy it to keep it).
 */
final class ParquetRowReader implements PartitionReader<InternalRow> {
  private final PartitionReader<ColumnarBatch> batches;
  private final UnsafeProjection toUnsafe;
  private Iterator<InternalRow> rows = Collections.emptyIterator();
  private InternalRow current;

  ParquetRowReader(PartitionReader<ColumnarBatch> batches, StructType schema) {
    this.batches = batches;
    this.toUnsafe = UnsafeProjection.create(schema);
  }

  @Override
  public boolean next() throws IOException {
    while (!rows.hasNext()) {
      if (!batches.next()) {
        current = null;
        return false;
      }
      rows = batches.get().rowIterator();
    }
    current = toUnsafe.apply(rows.next());
    return true;
  }

  @Override
  public InternalRow get() {
    if (current == null) {
      throw new IllegalStateException("No current row: call next() first");
    }
    return current;
  }

  @Override
  public void close() throws IOException {
    batches.close();
  }
}
