package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/** Snapshot JSON, as it appears in the table metadata's {@code snapshots} list. */
public final class SnapshotParser {
  private SnapshotParser() {}

  static final String OPERATION = "operation";
  private static final String SNAPSHOT_ID = "snapshot-id";
  private static final String PARENT_SNAPSHOT_ID = "parent-snapshot-id";
  private static final String SEQUENCE_NUMBER = "sequence-number";
  private static final String TIMESTAMP_MS = "timestamp-ms";
  private static final String SUMMARY = "summary";
  private static final String MANIFEST_LIST = "manifest-list";
  private static final String MANIFESTS = "manifests";
  private static final String SCHEMA_ID = "schema-id";
  private static final String FIRST_ROW_ID = "first-row-id";
  private static final String ADDED_ROWS = "added-rows";
  private static final String KEY_ID = "key-id";

  public static String toJson(Snapshot snapshot) {
    return JsonUtil.generate(gen -> toJson(snapshot, gen));
  }

  public static void toJson(Snapshot snapshot, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(SNAPSHOT_ID, snapshot.snapshotId());
    if (snapshot.parentId() != null) {
      gen.writeNumberField(PARENT_SNAPSHOT_ID, snapshot.parentId());
    }
    if (snapshot.sequenceNumber() > 0) {
      gen.writeNumberField(SEQUENCE_NUMBER, snapshot.sequenceNumber());
    }
    gen.writeNumberField(TIMESTAMP_MS, snapshot.timestampMillis());
    gen.writeObjectFieldStart(SUMMARY);
    gen.writeStringField(OPERATION, snapshot.operation());
    for (Map.Entry<String, String> e : snapshot.summary().entrySet()) {
      gen.writeStringField(e.getKey(), e.getValue());
    }
    gen.writeEndObject();
    if (snapshot.manifestListLocation() != null) {
      gen.writeStringField(MANIFEST_LIST, snapshot.manifestListLocation());
    } else {
      gen.writeArrayFieldStart(MANIFESTS);
      for (String manifest : snapshot.v1ManifestLocations()) {
        gen.writeString(manifest);
      }
      gen.writeEndArray();
    }
    if (snapshot.schemaId() != null) {
      gen.writeNumberField(SCHEMA_ID, snapshot.schemaId());
    }
    if (snapshot.firstRowId() != null) {
      gen.writeNumberField(FIRST_ROW_ID, snapshot.firstRowId());
    }
    if (snapshot.addedRows() != null) {
      gen.writeNumberField(ADDED_ROWS, snapshot.addedRows());
    }
    if (snapshot.keyId() != null) {
      gen.writeStringField(KEY_ID, snapshot.keyId());
    }
    gen.writeEndObject();
  }

  /**
   * The JSON of snapshots written before, while they are in use: a table's metadata file lists
   * every snapshot and is written whole at each commit, so without it a table of thousands of
   * snapshots would generate all of them again for every commit. Snapshots are immutable and
   * {@link Snapshot#equals} compares every field written here, so an equal snapshot (the same one
   * read again) shares the entry; weak keys let unused snapshots go. The cost: about twice a
   * snapshot's JSON (its text and its UTF-8 bytes, some hundreds of bytes) per snapshot in use.
   */
  private static final Map<Snapshot, SerializedString> WRITTEN = Collections.synchronizedMap(new WeakHashMap<>());

  /** As {@link #toJson(Snapshot, JsonGenerator)}, from the JSON kept for an equal snapshot when there is one. */
  static void toJsonKept(Snapshot snapshot, JsonGenerator gen) throws IOException {
    SerializedString json = WRITTEN.get(snapshot);
    if (json == null) {
      // generated as bytes, as the metadata around it is: the same escapes (a lone surrogate is
      // written as \\uXXXX), so the UTF-8 the kept string gives back is exactly those bytes
      byte[] bytes = JsonUtil.generateBytes(g -> toJson(snapshot, g), 512);
      json = new SerializedString(new String(bytes, StandardCharsets.UTF_8));
      WRITTEN.put(snapshot, json);
    }
    gen.writeRawValue(json);
  }

  public static Snapshot fromJson(String json) {
    try {
      return fromJson(JsonUtil.parse(json));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot parse snapshot: " + e.getMessage(), e);
    }
  }

  /**
   * Parses one snapshot. A missing {@code summary.operation} defaults to {@code overwrite}, as the
   * reference reader does; a missing {@code sequence-number} is 0 (v1).
   */
  public static Snapshot fromJson(JsonNode node) {
    Snapshot.Builder builder = Snapshot.builder()
        .snapshotId(JsonUtil.getLong(SNAPSHOT_ID, node))
        .parentId(JsonUtil.getLongOrNull(PARENT_SNAPSHOT_ID, node))
        .sequenceNumber(JsonUtil.isAbsent(SEQUENCE_NUMBER, node) ? 0 : JsonUtil.getLong(SEQUENCE_NUMBER, node))
        .timestampMillis(JsonUtil.getLong(TIMESTAMP_MS, node))
        .schemaId(JsonUtil.getIntOrNull(SCHEMA_ID, node))
        .firstRowId(JsonUtil.getLongOrNull(FIRST_ROW_ID, node))
        .addedRows(JsonUtil.getLongOrNull(ADDED_ROWS, node))
        .keyId(JsonUtil.getStringOrNull(KEY_ID, node));
    Map<String, String> summary = JsonUtil.getStringMap(SUMMARY, node);
    String operation = summary.remove(OPERATION);
    builder.operation(operation != null ? operation : DataOperations.OVERWRITE).summary(summary);
    if (!JsonUtil.isAbsent(MANIFEST_LIST, node)) {
      builder.manifestListLocation(JsonUtil.getString(MANIFEST_LIST, node));
    } else if (!JsonUtil.isAbsent(MANIFESTS, node)) {
      builder.v1ManifestLocations(stringList(node, MANIFESTS));
    } else {
      throw new IllegalArgumentException("missing field: " + MANIFEST_LIST);
    }
    return builder.build();
  }

  private static List<String> stringList(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (!value.isArray()) {
      throw JsonUtil.invalid(field, "a list", value);
    }
    List<String> out = new ArrayList<>();
    for (JsonNode v : value) {
      if (!v.isTextual()) {
        throw JsonUtil.invalid(field, "a list of strings", value);
      }
      out.add(v.asText());
    }
    return out;
  }
}
