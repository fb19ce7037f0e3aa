package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.util.JsonUtil;
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
    String type = JsonUtil.getString(TYPE, node);
    SnapshotRefType refType;
    try {
      refType = SnapshotRefType.fromString(type);
    } catch (IllegalArgumentException e) {
      throw JsonUtil.invalid(TYPE, "branch or tag", node.get(TYPE));
    }
    return SnapshotRef.builderFor(JsonUtil.getLong(SNAPSHOT_ID, node), refType)
        .minSnapshotsToKeep(JsonUtil.getIntOrNull(MIN_SNAPSHOTS_TO_KEEP, node))
        .maxSnapshotAgeMs(JsonUtil.getLongOrNull(MAX_SNAPSHOT_AGE_MS, node))
        .maxRefAgeMs(JsonUtil.getLongOrNull(MAX_REF_AGE_MS, node))
        .build();
  }
}
