package io.floe.format.partition;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.types.Schema;
import io.floe.format.util.JsonUtil;
import java.io.IOException;

/** Partition spec JSON: {@code {"spec-id": N, "fields": [...]}}; manifests also carry the bare fields array. */
public final class PartitionSpecParser {
  private PartitionSpecParser() {}

  private static final String SPEC_ID = "spec-id";
  private static final String FIELDS = "fields";
  private static final String SOURCE_ID = "source-id";
  private static final String FIELD_ID = "field-id";
  private static final String NAME = "name";
  private static final String TRANSFORM = "transform";

  public static void toJson(PartitionSpec spec, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(SPEC_ID, spec.specId());
    gen.writeFieldName(FIELDS);
    fieldsToJson(spec, gen);
    gen.writeEndObject();
  }

  public static String toJson(PartitionSpec spec) {
    return JsonUtil.generate(gen -> toJson(spec, gen));
  }

  public static String fieldsToJson(PartitionSpec spec) {
    return JsonUtil.generate(gen -> fieldsToJson(spec, gen));
  }

  public static void fieldsToJson(PartitionSpec spec, JsonGenerator gen) throws IOException {
    gen.writeStartArray();
    for (PartitionField f : spec.fields()) {
      gen.writeStartObject();
      gen.writeStringField(NAME, f.name());
      gen.writeStringField(TRANSFORM, f.transform().toString());
      gen.writeNumberField(SOURCE_ID, f.sourceId());
      gen.writeNumberField(FIELD_ID, f.fieldId());
      gen.writeEndObject();
    }
    gen.writeEndArray();
  }

  public static PartitionSpec fromJson(Schema schema, JsonNode node) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema).withSpecId(JsonUtil.getInt(SPEC_ID, node));
    JsonNode fields = JsonUtil.get(FIELDS, node);
    int fallbackId = PartitionSpec.PARTITION_DATA_ID_START;
    for (JsonNode f : fields) {
      int fieldId = f.has(FIELD_ID) ? JsonUtil.getInt(FIELD_ID, f) : fallbackId;
      fallbackId = fieldId + 1;
      builder.add(JsonUtil.getInt(SOURCE_ID, f), fieldId, JsonUtil.getString(NAME, f),
          Transforms.fromString(JsonUtil.getString(TRANSFORM, f)));
    }
    return builder.build();
  }
}
