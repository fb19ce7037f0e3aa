package io.floe.format.types;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Schema JSON as the spec's Appendix C defines it. */
public final class SchemaParser {
  private SchemaParser() {}

  private static final String SCHEMA_ID = "schema-id";
  private static final String IDENTIFIER_FIELD_IDS = "identifier-field-ids";
  private static final String TYPE = "type";
  private static final String FIELDS = "fields";
  private static final String ID = "id";
  private static final String NAME = "name";
  private static final String REQUIRED = "required";
  private static final String DOC = "doc";
  private static final String ELEMENT_ID = "element-id";
  private static final String ELEMENT = "element";
  private static final String ELEMENT_REQUIRED = "element-required";
  private static final String KEY_ID = "key-id";
  private static final String KEY = "key";
  private static final String VALUE_ID = "value-id";
  private static final String VALUE = "value";
  private static final String VALUE_REQUIRED = "value-required";

  public static String toJson(Schema schema) {
    return JsonUtil.generate(gen -> toJson(schema, gen));
  }

  public static void toJson(Schema schema, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeStringField(TYPE, "struct");
    gen.writeNumberField(SCHEMA_ID, schema.schemaId());
    if (!schema.identifierFieldIds().isEmpty()) {
      gen.writeArrayFieldStart(IDENTIFIER_FIELD_IDS);
      for (int id : schema.identifierFieldIds()) {
        gen.writeNumber(id);
      }
      gen.writeEndArray();
    }
    writeFields(schema.columns(), gen);
    gen.writeEndObject();
  }

  public static void typeToJson(Type type, JsonGenerator gen) throws IOException {
    switch (type.typeId()) {
      case STRUCT:
        gen.writeStartObject();
        gen.writeStringField(TYPE, "struct");
        writeFields(type.asStructType().fields(), gen);
        gen.writeEndObject();
        break;
      case LIST: {
        Types.ListType list = type.asListType();
        gen.writeStartObject();
        gen.writeStringField(TYPE, "list");
        gen.writeNumberField(ELEMENT_ID, list.elementId());
        gen.writeFieldName(ELEMENT);
        typeToJson(list.elementType(), gen);
        gen.writeBooleanField(ELEMENT_REQUIRED, !list.isElementOptional());
        gen.writeEndObject();
        break;
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        gen.writeStartObject();
        gen.writeStringField(TYPE, "map");
        gen.writeNumberField(KEY_ID, map.keyId());
        gen.writeFieldName(KEY);
        typeToJson(map.keyType(), gen);
        gen.writeNumberField(VALUE_ID, map.valueId());
        gen.writeFieldName(VALUE);
        typeToJson(map.valueType(), gen);
        gen.writeBooleanField(VALUE_REQUIRED, !map.isValueOptional());
        gen.writeEndObject();
        break;
      }
      default:
        gen.writeString(type.toString());
    }
  }

  private static void writeFields(List<Types.NestedField> fields, JsonGenerator gen) throws IOException {
    gen.writeArrayFieldStart(FIELDS);
    for (Types.NestedField f : fields) {
      gen.writeStartObject();
      gen.writeNumberField(ID, f.fieldId());
      gen.writeStringField(NAME, f.name());
      gen.writeBooleanField(REQUIRED, f.isRequired());
      gen.writeFieldName(TYPE);
      typeToJson(f.type(), gen);
      if (f.doc() != null) {
        gen.writeStringField(DOC, f.doc());
      }
      gen.writeEndObject();
    }
    gen.writeEndArray();
  }

  public static Schema fromJson(String json) {
    return fromJson(JsonUtil.parse(json));
  }

  public static Schema fromJson(JsonNode node) {
    Type type = typeFromJson(node);
    if (!type.isStructType()) {
      throw new IllegalArgumentException("Cannot parse schema: not a struct: " + node);
    }
    TypeUtil.indexById(type.asStructType()); // a field id used twice is an error here, not at first lookup
    int schemaId = node.has(SCHEMA_ID) ? JsonUtil.getInt(SCHEMA_ID, node) : 0;
    Set<Integer> identifiers = new HashSet<>();
    if (node.has(IDENTIFIER_FIELD_IDS)) {
      for (JsonNode id : node.get(IDENTIFIER_FIELD_IDS)) {
        identifiers.add(id.asInt());
      }
    }
    return new Schema(schemaId, type.asStructType().fields(), identifiers);
  }

  public static Type typeFromJson(JsonNode node) {
    if (node.isTextual()) {
      return Types.fromPrimitiveString(node.asText());
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException("Cannot parse type from json: " + node);
    }
    String type = JsonUtil.getString(TYPE, node);
    switch (type) {
      case "struct": {
        List<Types.NestedField> fields = new ArrayList<>();
        JsonNode fieldsNode = node.get(FIELDS);
        if (fieldsNode == null || !fieldsNode.isArray()) {
          throw new IllegalArgumentException("Cannot parse missing field: " + FIELDS);
        }
        for (JsonNode f : fieldsNode) {
          fields.add(Types.NestedField.of(
              JsonUtil.getInt(ID, f),
              !JsonUtil.getBool(REQUIRED, f),
              JsonUtil.getString(NAME, f),
              typeFromJson(JsonUtil.get(TYPE, f)),
              f.has(DOC) && !f.get(DOC).isNull() ? f.get(DOC).asText() : null));
        }
        return Types.StructType.of(fields);
      }
      case "list": {
        int elementId = JsonUtil.getInt(ELEMENT_ID, node);
        Type element = typeFromJson(JsonUtil.get(ELEMENT, node));
        return JsonUtil.getBool(ELEMENT_REQUIRED, node) ? Types.ListType.ofRequired(elementId, element)
            : Types.ListType.ofOptional(elementId, element);
      }
      case "map": {
        int keyId = JsonUtil.getInt(KEY_ID, node);
        int valueId = JsonUtil.getInt(VALUE_ID, node);
        Type key = typeFromJson(JsonUtil.get(KEY, node));
        Type value = typeFromJson(JsonUtil.get(VALUE, node));
        return JsonUtil.getBool(VALUE_REQUIRED, node) ? Types.MapType.ofRequired(keyId, valueId, key, value)
            : Types.MapType.ofOptional(keyId, valueId, key, value);
      }
      default:
        throw new IllegalArgumentException("Cannot parse type from json: unknown type " + type);
    }
  }
}
