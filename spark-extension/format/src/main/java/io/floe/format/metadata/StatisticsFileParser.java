package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;

/** JSON of the table metadata's {@code statistics} and {@code partition-statistics} entries. */
public final class StatisticsFileParser {
  private StatisticsFileParser() {}

  private static final String SNAPSHOT_ID = "snapshot-id";
  private static final String STATISTICS_PATH = "statistics-path";
  private static final String FILE_SIZE_IN_BYTES = "file-size-in-bytes";
  private static final String FILE_FOOTER_SIZE_IN_BYTES = "file-footer-size-in-bytes";
  private static final String KEY_METADATA = "key-metadata";
  private static final String BLOB_METADATA = "blob-metadata";
  private static final String TYPE = "type";
  private static final String SEQUENCE_NUMBER = "sequence-number";
  private static final String FIELDS = "fields";
  private static final String PROPERTIES = "properties";

  public static void toJson(StatisticsFile file, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(SNAPSHOT_ID, file.snapshotId());
    gen.writeStringField(STATISTICS_PATH, file.path());
    gen.writeNumberField(FILE_SIZE_IN_BYTES, file.fileSizeInBytes());
    gen.writeNumberField(FILE_FOOTER_SIZE_IN_BYTES, file.fileFooterSizeInBytes());
    ByteBuffer key = file.keyMetadata();
    if (key != null) {
      byte[] bytes = new byte[key.remaining()];
      key.get(bytes);
      gen.writeStringField(KEY_METADATA, Base64.getEncoder().encodeToString(bytes));
    }
    gen.writeArrayFieldStart(BLOB_METADATA);
    for (StatisticsBlobMetadata blob : file.blobMetadata()) {
      blobToJson(blob, gen);
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }

  private static void blobToJson(StatisticsBlobMetadata blob, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeStringField(TYPE, blob.type());
    gen.writeNumberField(SNAPSHOT_ID, blob.sourceSnapshotId());
    gen.writeNumberField(SEQUENCE_NUMBER, blob.sourceSnapshotSequenceNumber());
    gen.writeArrayFieldStart(FIELDS);
    for (int id : blob.fields()) {
      gen.writeNumber(id);
    }
    gen.writeEndArray();
    if (!blob.properties().isEmpty()) {
      gen.writeObjectFieldStart(PROPERTIES);
      for (Map.Entry<String, String> e : blob.properties().entrySet()) {
        gen.writeStringField(e.getKey(), e.getValue());
      }
      gen.writeEndObject();
    }
    gen.writeEndObject();
  }

  public static StatisticsFile fromJson(JsonNode node) {
    String keyText = JsonUtil.getStringOrNull(KEY_METADATA, node);
    ByteBuffer key;
    try {
      key = keyText == null ? null : ByteBuffer.wrap(Base64.getDecoder().decode(keyText));
    } catch (IllegalArgumentException e) {
      throw JsonUtil.invalid(KEY_METADATA, "base64", node.get(KEY_METADATA));
    }
    JsonUtil.get(BLOB_METADATA, node);
    return new StatisticsFile(
        JsonUtil.getLong(SNAPSHOT_ID, node),
        JsonUtil.getString(STATISTICS_PATH, node),
        JsonUtil.getLong(FILE_SIZE_IN_BYTES, node),
        JsonUtil.getLong(FILE_FOOTER_SIZE_IN_BYTES, node),
        key,
        JsonUtil.getList(BLOB_METADATA, node, StatisticsFileParser::blobFromJson));
  }

  private static StatisticsBlobMetadata blobFromJson(JsonNode node) {
    return new StatisticsBlobMetadata(
        JsonUtil.getString(TYPE, node),
        JsonUtil.getLong(SNAPSHOT_ID, node),
        JsonUtil.getLong(SEQUENCE_NUMBER, node),
        JsonUtil.getIntList(FIELDS, node),
        JsonUtil.getStringMap(PROPERTIES, node));
  }

  public static void toJson(PartitionStatisticsFile file, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(SNAPSHOT_ID, file.snapshotId());
    gen.writeStringField(STATISTICS_PATH, file.path());
    gen.writeNumberField(FILE_SIZE_IN_BYTES, file.fileSizeInBytes());
    gen.writeEndObject();
  }

  public static PartitionStatisticsFile partitionStatisticsFromJson(JsonNode node) {
    return new PartitionStatisticsFile(
        JsonUtil.getLong(SNAPSHOT_ID, node),
        JsonUtil.getString(STATISTICS_PATH, node),
        JsonUtil.getLong(FILE_SIZE_IN_BYTES, node));
  }
}
