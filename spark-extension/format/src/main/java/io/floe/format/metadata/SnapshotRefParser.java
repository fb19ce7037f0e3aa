package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/** Snapshot reference JSON: {@code {"snapshot-id", "type", retention fields when set}}. */
public final class SnapshotRefParser {
  private SnapshotRefParser() {}

  private static final String SNAPSHOT_ID = "snapshot-id";
  private static final String TYPE = "type";
  private static final String MIN_SNAPSHOTS_TO_KEEP = "min-snapshots-to-keep";
  private static final String MAX_SNAPSHOT_AGE_MS = "max-snapshot-age-ms";
  private static final String MAX_REF_AGE_MS = "max-ref-age-ms";

  public static void toJson(SnapshotRef ref, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(SNAPSHOT_ID, ref.snapshotId());
    gen.writeStringField(TYPE, ref.type().jsonName());
    if (ref.minSnapshotsToKeep() != null) {
      gen.writeNumberField(MIN_SNAPSHOTS_TO_KEEP, ref.minSnapshotsToKeep());
    }
    if (ref.maxSnapshotAgeMs() != null) {
      gen.writeNumberField(MAX_SNAPSHOT_AGE_MS, ref.maxSnapshotAgeMs());
    }
    if (ref.maxRefAgeMs() != null) {
      gen.writeNumberField(MAX_REF_AGE_MS, ref.maxRefAgeMs());
    }
    gen.writeEndObject();
  }

  public static SnapshotRef fromJson(JsonNode node) {
    String type = Json.getString(node, TYPE);
    SnapshotRefType refType;
    try {
      refType = SnapshotRefType.fromString(type);
    } catch (IllegalArgumentException e) {
      throw Json.invalid(TYPE, "branch or tag", node.get(TYPE));
    }
    return SnapshotRef.builderFor(Json.getLong(node, SNAPSHOT_ID), refType)
        .minSnapshotsToKeep(Json.getIntOrNull(node, MIN_SNAPSHOTS_TO_KEEP))
        .maxSnapshotAgeMs(Json.getLongOrNull(node, MAX_SNAPSHOT_AGE_MS))
        .maxRefAgeMs(Json.getLongOrNull(node, MAX_REF_AGE_MS))
        .build();
  }
}
