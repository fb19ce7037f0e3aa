package io.floe.format.puffin;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The JSON of a Puffin footer payload: {@code {"blobs": [BlobMetadata...], "properties": {...}}}.
 * Optional keys ({@code compression-codec}, empty {@code properties}) are written only when
 * present; missing required keys fail with "Cannot parse missing field: NAME".
 */
public final class PuffinFooterParser {
  private PuffinFooterParser() {}

  private static final String BLOBS = "blobs";
  private static final String PROPERTIES = "properties";
  private static final String TYPE = "type";
  private static final String FIELDS = "fields";
  private static final String SNAPSHOT_ID = "snapshot-id";
  private static final String SEQUENCE_NUMBER = "sequence-number";
  private static final String OFFSET = "offset";
  private static final String LENGTH = "length";
  private static final String COMPRESSION_CODEC = "compression-codec";

  public static String toJson(FileMetadata metadata) {
    return JsonUtil.generate(gen -> toJson(metadata, gen));
  }

  public static void toJson(FileMetadata metadata, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeArrayFieldStart(BLOBS);
    for (BlobMetadata blob : metadata.blobs()) {
      toJson(blob, gen);
    }
    gen.writeEndArray();
    if (!metadata.properties().isEmpty()) {
      JsonUtil.writeStringMap(PROPERTIES, metadata.properties(), gen);
    }
    gen.writeEndObject();
  }

  private static void toJson(BlobMetadata blob, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeStringField(TYPE, blob.type());
    gen.writeArrayFieldStart(FIELDS);
    for (int id : blob.inputFields()) {
      gen.writeNumber(id);
    }
    gen.writeEndArray();
    gen.writeNumberField(SNAPSHOT_ID, blob.snapshotId());
    gen.writeNumberField(SEQUENCE_NUMBER, blob.sequenceNumber());
    gen.writeNumberField(OFFSET, blob.offset());
    gen.writeNumberField(LENGTH, blob.length());
    if (blob.compressionCodec() != null) {
      gen.writeStringField(COMPRESSION_CODEC, blob.compressionCodec());
    }
    if (!blob.properties().isEmpty()) {
      JsonUtil.writeStringMap(PROPERTIES, blob.properties(), gen);
    }
    gen.writeEndObject();
  }

  /** Parses a footer payload; IllegalArgumentException says which field is missing or wrong. */
  public static FileMetadata fromJson(String json) {
    JsonNode node = JsonUtil.parse(json);
    if (!node.isObject()) {
      throw new IllegalArgumentException("Cannot parse Puffin footer from non-object: " + node.getNodeType());
    }
    JsonNode blobs = JsonUtil.get(BLOBS, node);
    if (!blobs.isArray()) {
      throw new IllegalArgumentException("Cannot parse blobs from non-array: " + blobs.getNodeType());
    }
    List<BlobMetadata> parsed = new ArrayList<>();
    for (JsonNode blob : blobs) {
      parsed.add(blobFromJson(blob));
    }
    return new FileMetadata(parsed, stringMap(node));
  }

  private static BlobMetadata blobFromJson(JsonNode node) {
    if (!node.isObject()) {
      throw new IllegalArgumentException("Cannot parse blob metadata from non-object: " + node);
    }
    JsonNode fields = JsonUtil.get(FIELDS, node);
    if (!fields.isArray()) {
      throw new IllegalArgumentException("Cannot parse fields from non-array: " + fields);
    }
    List<Integer> ids = new ArrayList<>();
    for (JsonNode id : fields) {
      if (!id.isIntegralNumber() || !id.canConvertToInt()) {
        throw new IllegalArgumentException("Cannot parse field id from non-integer: " + id);
      }
      ids.add(id.intValue());
    }
    return new BlobMetadata(
        JsonUtil.getString(TYPE, node),
        ids,
        JsonUtil.getLong(SNAPSHOT_ID, node),
        JsonUtil.getLong(SEQUENCE_NUMBER, node),
        JsonUtil.getLong(OFFSET, node),
        JsonUtil.getLong(LENGTH, node),
        JsonUtil.getStringOrNull(COMPRESSION_CODEC, node),
        stringMap(node));
  }

  private static Map<String, String> stringMap(JsonNode node) {
    JsonNode properties = node.get(PROPERTIES);
    if (properties != null && !properties.isNull()) {
      if (!properties.isObject()) {
        throw new IllegalArgumentException("Cannot parse properties from non-object: " + properties);
      }
      for (Map.Entry<String, JsonNode> e : properties.properties()) {
        if (!e.getValue().isTextual()) {
          throw new IllegalArgumentException(
              "Cannot parse property " + e.getKey() + " from non-string: " + e.getValue());
        }
      }
    }
    return JsonUtil.getStringMap(PROPERTIES, node);
  }
}
