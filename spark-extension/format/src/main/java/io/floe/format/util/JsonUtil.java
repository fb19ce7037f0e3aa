package io.floe.format.util;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small helpers for the hand-written JSON parsers: typed getters that name a missing field. */
public final class JsonUtil {
  private JsonUtil() {}

  private static final JsonFactory FACTORY = new JsonFactory();
  private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

  public interface ToJson {
    void generate(JsonGenerator gen) throws IOException;
  }

  public static String generate(ToJson body) {
    return generate(body, false);
  }

  public static String generate(ToJson body, boolean pretty) {
    try {
      StringWriter writer = new StringWriter();
      JsonGenerator gen = FACTORY.createGenerator(writer);
      if (pretty) {
        gen.useDefaultPrettyPrinter();
      }
      body.generate(gen);
      gen.flush();
      return writer.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse JSON: " + e.getMessage(), e);
    }
  }

  public static JsonNode get(String field, JsonNode node) {
    JsonNode value = node.get(field);
    if (value == null) {
      throw new IllegalArgumentException("Cannot parse missing field: " + field);
    }
    return value;
  }

  public static int getInt(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new IllegalArgumentException("Cannot parse to an integer value: " + field + ": " + value);
    }
    return value.intValue();
  }

  public static long getLong(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new IllegalArgumentException("Cannot parse to a long value: " + field + ": " + value);
    }
    return value.longValue();
  }

  public static Long getLongOrNull(String field, JsonNode node) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    return getLong(field, node);
  }

  public static Integer getIntOrNull(String field, JsonNode node) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    return getInt(field, node);
  }

  public static String getString(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isTextual()) {
      throw new IllegalArgumentException("Cannot parse to a string value: " + field + ": " + value);
    }
    return value.asText();
  }

  public static String getStringOrNull(String field, JsonNode node) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    return getString(field, node);
  }

  public static boolean getBool(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isBoolean()) {
      throw new IllegalArgumentException("Cannot parse to a boolean value: " + field + ": " + value);
    }
    return value.asBoolean();
  }

  public static Map<String, String> getStringMap(String field, JsonNode node) {
    Map<String, String> out = new LinkedHashMap<>();
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return out;
    }
    if (!value.isObject()) {
      throw new IllegalArgumentException("Cannot parse to a string map: " + field + ": " + value);
    }
    value.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    return out;
  }

  public static List<Integer> getIntList(String field, JsonNode node) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode v : get(field, node)) {
      out.add(v.asInt());
    }
    return out;
  }

  public static void writeStringMap(String field, Map<String, String> map, JsonGenerator gen) throws IOException {
    gen.writeObjectFieldStart(field);
    for (Map.Entry<String, String> e : map.entrySet()) {
      gen.writeStringField(e.getKey(), e.getValue());
    }
    gen.writeEndObject();
  }
}
