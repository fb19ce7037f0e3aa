package io.floe.spark.source;

import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.spark.FloeTable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Opens each data file with Spark's vectorized Parquet reader, columns matched by field id, and
 * leaves out the rows its position deletes and deletion vectors remove.
 */
final class FloeReaderFactory implements PartitionReaderFactory {
  private final StructType readSchema;
  private final SerializableConfiguration conf;
  private final int batchSize;

  FloeReaderFactory(StructType readSchema, SerializableConfiguration conf, int batchSize) {
    this.readSchema = readSchema;
    this.conf = conf;
    this.batchSize = batchSize;
  }

  /**
   * A reader of one data file. Its deletes are loaded here, once per task, into a 64-bit Roaring
   * bitmap; the reader drops deleted rows from each batch by probing it per position.
   */
  private FloeParquetReader.Builder builder(InputPartition partition) {
    FloeInputPartition file = (FloeInputPartition) partition;
    FloeParquetReader.Builder builder = FloeParquetReader.read(file.path())
        .project(readSchema)
        .conf(conf.value())
        .batchSize(batchSize);
    for (StructField field : readSchema.fields()) {
      if (field.metadata().contains(FloeParquetReader.METADATA_COLUMN_KEY)) {
        if (FloeTable.SPEC_ID_COLUMN.equals(field.name())) {
          builder.constant(field.name(), file.specId());
        } else if (FloeTable.PARTITION_COLUMN.equals(field.name())) {
          builder.constant(field.name(), file.partition());
        }
      }
    }
    if (!file.deletes().isEmpty()) {
      RoaringPositionBitmap deleted = DeleteLoader.load(file, conf.value(), batchSize);
      if (!deleted.isEmpty()) {
        builder.filterDeleted(deleted::contains);
      }
    }
    return builder;
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
