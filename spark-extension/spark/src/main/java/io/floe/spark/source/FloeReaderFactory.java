package io.floe.spark.source;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;

/** Opens each data file with Spark's vectorized Parquet reader, columns matched by field id. */
final class FloeReaderFactory implements PartitionReaderFactory {
  private final StructType readSchema;
  private final SerializableConfiguration conf;
  private final int batchSize;

  FloeReaderFactory(StructType readSchema, SerializableConfiguration conf, int batchSize) {
    this.readSchema = readSchema;
    this.conf = conf;
    this.batchSize = batchSize;
  }

  private FloeParquetReader.Builder builder(InputPartition partition) {
    FloeInputPartition file = (FloeInputPartition) partition;
    if (!file.deletes().isEmpty()) {
      throw new UnsupportedOperationException("Cannot read data file " + file.path() + ": it has "
          + file.deletes().size() + " delete file(s) (" + file.deletes().get(0).path()
          + "); reading row-level deletes is not supported by this Floe version yet");
    }
    return FloeParquetReader.read(file.path())
        .project(readSchema)
        .conf(conf.value())
        .batchSize(batchSize);
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return builder(partition).build();
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return builder(partition).buildRowReader();
  }
}
