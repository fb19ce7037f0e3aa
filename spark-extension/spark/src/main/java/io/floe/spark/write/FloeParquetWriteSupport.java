package io.floe.spark.write;

import io.floe.format.types.Schema;
import io.floe.format.types.SchemaParser;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport;

/**
 * Spark's own {@code InternalRow} Parquet writer, writing the Floe file schema: field ids on every
 * node and Floe's physical types (see {@link ParquetWriteSchema}). Values still go through Spark's
 * writers, followed by a {@link FieldTrackingConsumer}. The footer carries the table schema as
 * {@code iceberg.schema}, as other Iceberg writers do, and Spark's version key.
 */
final class FloeParquetWriteSupport extends ParquetWriteSupport {
  static final String SCHEMA_METADATA_KEY = "iceberg.schema";

  private final Schema schema;
  private ParquetWriteSchema writeSchema;

  FloeParquetWriteSupport(Schema schema) {
    this.schema = schema;
  }

  @Override
  public WriteContext init(Configuration conf) {
    WriteContext sparkContext = super.init(conf);
    this.writeSchema = ParquetWriteSchema.build(sparkContext.getSchema(), schema.asStruct());
    Map<String, String> metadata = new HashMap<>(sparkContext.getExtraMetaData());
    // Spark's row type describes the input (a uuid arrives as a string), not the file: leave it out.
    // The Spark version key stays: Spark's reader needs it to skip calendar rebasing of old dates.
    metadata.remove(ParquetReadSupport.SPARK_METADATA_KEY());
    metadata.put(SCHEMA_METADATA_KEY, SchemaParser.toJson(schema));
    return new WriteContext(writeSchema.messageType(), metadata);
  }

  @Override
  public void prepareForWrite(RecordConsumer consumer) {
    super.prepareForWrite(new FieldTrackingConsumer(consumer, writeSchema));
  }

  /** The schema chosen by {@link #init}; null before. */
  ParquetWriteSchema writeSchema() {
    return writeSchema;
  }
}
