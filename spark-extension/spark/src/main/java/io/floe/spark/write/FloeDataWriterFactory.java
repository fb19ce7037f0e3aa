package io.floe.spark.write;

import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.PartitionSpecParser;
import io.floe.format.types.Schema;
import io.floe.format.types.SchemaParser;
import io.floe.format.util.JsonUtil;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Ships the table's schema, spec and write properties to executors (as JSON, since the models are not
 * serializable); {@code fanout} picks the writer that takes rows in any partition order, and
 * {@code indexedColumns} the columns whose values each file's writer gathers for the sync indexes.
 */
final class FloeDataWriterFactory implements DataWriterFactory {
  private final String schemaJson;
  private final String specJson;
  private final StructType rowType;
  private final String dataLocation;
  private final SerializableConfiguration conf;
  private final Map<String, String> properties;
  private final String operationId;
  private final boolean fanout;
  private final IndexedColumns indexedColumns;

  FloeDataWriterFactory(Schema schema, PartitionSpec spec, StructType rowType, String dataLocation,
      SerializableConfiguration conf, Map<String, String> properties, String operationId, boolean fanout,
      IndexedColumns indexedColumns) {
    this.schemaJson = SchemaParser.toJson(schema);
    this.specJson = PartitionSpecParser.toJson(spec);
    this.rowType = rowType;
    this.dataLocation = dataLocation;
    this.conf = conf;
    this.properties = Map.copyOf(properties);
    this.operationId = operationId;
    this.fanout = fanout;
    this.indexedColumns = indexedColumns;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    Schema schema = SchemaParser.fromJson(schemaJson);
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, JsonUtil.parse(specJson));
    if (fanout) {
      return FloeDataWriter.fanout(schema, rowType, spec, dataLocation, conf.value(), properties, partitionId,
          taskId, operationId, indexedColumns);
    }
    return new FloeDataWriter(schema, rowType, spec, dataLocation, conf.value(), properties, partitionId, taskId,
        operationId, indexedColumns);
  }
}
