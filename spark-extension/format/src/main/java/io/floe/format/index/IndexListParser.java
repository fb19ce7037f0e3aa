package io.floe.format.index;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.util.JsonUtil;
import java.io.IOException;

/**
 * JSON of an {@link IndexList} (docs/indexes.md). Unknown fields are ignored, so a newer writer
 * may add some; a newer {@code format-version} is refused.
 * <pre>
 *   {"format-version": 1, "indexes": [
 *     {"name": "by_user", "type": "btree", "source-field-ids": [3], "properties": {"maintenance": "sync"},
 *      "segments": [{"path": "...puffin", "file-size-in-bytes": 4096, "covered-file-count": 12,
 *                    "entry-count": 1000, "snapshot-id": 17, "sequence-number": 4}]}]}
 * </pre>
 */
public final class IndexListParser {
  private IndexListParser() {}

  private static final String FORMAT_VERSION = "format-version";
  private static final String INDEXES = "indexes";
  private static final String NAME = "name";
  private static final String TYPE = "type";
  private static final String SOURCE_FIELD_IDS = "source-field-ids";
  private static final String PROPERTIES = "properties";
  private static final String SEGMENTS = "segments";
  private static final String PATH = "path";
  private static final String FILE_SIZE_IN_BYTES = "file-size-in-bytes";
  private static final String COVERED_FILE_COUNT = "covered-file-count";
  private static final String ENTRY_COUNT = "entry-count";
  private static final String SNAPSHOT_ID = "snapshot-id";
  private static final String SEQUENCE_NUMBER = "sequence-number";

  public static String toJson(IndexList list) {
    return JsonUtil.generate(gen -> toJson(list, gen), true);
  }

  public static void toJson(IndexList list, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(FORMAT_VERSION, IndexList.FORMAT_VERSION);
    gen.writeArrayFieldStart(INDEXES);
    for (TableIndex index : list.indexes()) {
      gen.writeStartObject();
      gen.writeStringField(NAME, index.name());
      gen.writeStringField(TYPE, index.type().typeName());
      gen.writeArrayFieldStart(SOURCE_FIELD_IDS);
      for (int id : index.sourceFieldIds()) {
        gen.writeNumber(id);
      }
      gen.writeEndArray();
      if (!index.properties().isEmpty()) {
        JsonUtil.writeStringMap(PROPERTIES, index.properties(), gen);
      }
      gen.writeArrayFieldStart(SEGMENTS);
      for (IndexSegment segment : index.segments()) {
        gen.writeStartObject();
        gen.writeStringField(PATH, segment.path());
        gen.writeNumberField(FILE_SIZE_IN_BYTES, segment.fileSizeInBytes());
        gen.writeNumberField(COVERED_FILE_COUNT, segment.coveredFileCount());
        gen.writeNumberField(ENTRY_COUNT, segment.entryCount());
        gen.writeNumberField(SNAPSHOT_ID, segment.snapshotId());
        gen.writeNumberField(SEQUENCE_NUMBER, segment.sequenceNumber());
        gen.writeEndObject();
      }
      gen.writeEndArray();
      gen.writeEndObject();
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }

  /** Parses an index list; errors say {@code Cannot parse index list: ...} and name the field. */
  public static IndexList fromJson(String json) {
    try {
      return fromJson(JsonUtil.parse(json));
    } catch (IllegalArgumentException e) {
      throw e.getMessage() != null && e.getMessage().startsWith("Cannot parse index list") ? e
          : new IllegalArgumentException("Cannot parse index list: " + e.getMessage(), e);
    }
  }

  public static IndexList fromJson(JsonNode node) {
    if (!node.isObject()) {
      throw new IllegalArgumentException("Cannot parse index list: expected a JSON object, found " + node.getNodeType());
    }
    int version = JsonUtil.getInt(FORMAT_VERSION, node);
    if (version > IndexList.FORMAT_VERSION) {
      throw new IllegalArgumentException("Cannot parse index list: format-version " + version
          + " is newer than this Floe supports (" + IndexList.FORMAT_VERSION + ")");
    }
    JsonUtil.get(INDEXES, node);
    IndexList.Builder list = IndexList.buildFrom(IndexList.empty());
    for (TableIndex index : JsonUtil.getList(INDEXES, node, IndexListParser::indexFromJson)) {
      list.add(index);
    }
    return list.build();
  }

  private static TableIndex indexFromJson(JsonNode node) {
    String name = JsonUtil.getString(NAME, node);
    String typeName = JsonUtil.getString(TYPE, node);
    IndexType type;
    try {
      type = IndexType.fromName(typeName);
    } catch (IllegalArgumentException e) {
      throw JsonUtil.invalid(TYPE, "inverted or btree", node.get(TYPE));
    }
    TableIndex.Builder index = TableIndex.builder(name, type, JsonUtil.getIntList(SOURCE_FIELD_IDS, node))
        .setProperties(JsonUtil.getStringMap(PROPERTIES, node));
    JsonUtil.get(SEGMENTS, node);
    for (IndexSegment segment : JsonUtil.getList(SEGMENTS, node, IndexListParser::segmentFromJson)) {
      index.addSegment(segment);
    }
    return index.build();
  }

  private static IndexSegment segmentFromJson(JsonNode node) {
    return new IndexSegment(JsonUtil.getString(PATH, node), JsonUtil.getLong(FILE_SIZE_IN_BYTES, node),
        JsonUtil.getInt(COVERED_FILE_COUNT, node), JsonUtil.getLong(ENTRY_COUNT, node),
        JsonUtil.getLong(SNAPSHOT_ID, node), JsonUtil.getLong(SEQUENCE_NUMBER, node));
  }
}
