package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
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
    for (BlobMetadata blob : file.blobMetadata()) {
      blobToJson(blob, gen);
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }

  private static void blobToJson(BlobMetadata blob, JsonGenerator gen) throws IOException {
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
    String keyText = Json.getStringOrNull(node, KEY_METADATA);
    ByteBuffer key;
    try {
      key = keyText == null ? null : ByteBuffer.wrap(Base64.getDecoder().decode(keyText));
    } catch (IllegalArgumentException e) {
      throw Json.invalid(KEY_METADATA, "base64", node.get(KEY_METADATA));
    }
    Json.required(node, BLOB_METADATA);
    return new StatisticsFile(
        Json.getLong(node, SNAPSHOT_ID),
        Json.getString(node, STATISTICS_PATH),
        Json.getLong(node, FILE_SIZE_IN_BYTES),
        Json.getLong(node, FILE_FOOTER_SIZE_IN_BYTES),
        key,
        Json.getList(node, BLOB_METADATA, StatisticsFileParser::blobFromJson));
  }

  private static BlobMetadata blobFromJson(JsonNode node) {
    return new BlobMetadata(
        Json.getString(node, TYPE),
        Json.getLong(node, SNAPSHOT_ID),
        Json.getLong(node, SEQUENCE_NUMBER),
        Json.getIntList(node, FIELDS),
        Json.getStringMap(node, PROPERTIES));
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
        Json.getLong(node, SNAPSHOT_ID),
        Json.getString(node, STATISTICS_PATH),
        Json.getLong(node, FILE_SIZE_IN_BYTES));
  }
}
