package io.floe.format.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Typed getters for the metadata parsers. Errors say "missing field: x" or "invalid field x: ...";
 * the public entry points prefix them with what was being parsed (and the metadata file).
 */
final class Json {
  private Json() {}

  static JsonNode required(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new IllegalArgumentException("missing field: " + field);
    }
    return value;
  }

  static int getInt(JsonNode node, String field) {
    JsonNode value = required(node, field);
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(field, "an int", value);
    }
    return value.intValue();
  }

  static Integer getIntOrNull(JsonNode node, String field) {
    return isAbsent(node, field) ? null : getInt(node, field);
  }

  static long getLong(JsonNode node, String field) {
    JsonNode value = required(node, field);
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw invalid(field, "a long", value);
    }
    return value.longValue();
  }

  static Long getLongOrNull(JsonNode node, String field) {
    return isAbsent(node, field) ? null : getLong(node, field);
  }

  static String getString(JsonNode node, String field) {
    JsonNode value = required(node, field);
    if (!value.isTextual()) {
      throw invalid(field, "a string", value);
    }
    return value.asText();
  }

  static String getStringOrNull(JsonNode node, String field) {
    return isAbsent(node, field) ? null : getString(node, field);
  }

  static boolean isAbsent(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull();
  }

  /** A string map; absent means empty. Scalar values are kept as text, null values are dropped. */
  static Map<String, String> getStringMap(JsonNode node, String field) {
    Map<String, String> out = new LinkedHashMap<>();
    if (isAbsent(node, field)) {
      return out;
    }
    JsonNode value = node.get(field);
    if (!value.isObject()) {
      throw invalid(field, "an object", value);
    }
    value.fieldNames().forEachRemaining(key -> {
      JsonNode v = value.get(key);
      if (v.isContainerNode()) {
        throw invalid(field + "." + key, "a string", v);
      }
      if (!v.isNull()) {
        out.put(key, v.asText());
      }
    });
    return out;
  }

  static List<Integer> getIntList(JsonNode node, String field) {
    JsonNode value = required(node, field);
    if (!value.isArray()) {
      throw invalid(field, "a list", value);
    }
    List<Integer> out = new ArrayList<>();
    for (JsonNode v : value) {
      if (!v.isIntegralNumber() || !v.canConvertToInt()) {
        throw invalid(field, "a list of ints", value);
      }
      out.add(v.intValue());
    }
    return out;
  }

  /** Parses each element of an array field; an absent field is an empty list. */
  static <T> List<T> getList(JsonNode node, String field, Function<JsonNode, T> parse) {
    List<T> out = new ArrayList<>();
    if (isAbsent(node, field)) {
      return out;
    }
    JsonNode value = node.get(field);
    if (!value.isArray()) {
      throw invalid(field, "a list", value);
    }
    for (int i = 0; i < value.size(); i++) {
      JsonNode element = value.get(i);
      if (!element.isObject()) {
        throw invalid(field + "[" + i + "]", "an object", element);
      }
      try {
        out.add(parse.apply(element));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("in " + field + "[" + i + "]: " + e.getMessage(), e);
      }
    }
    return out;
  }

  static IllegalArgumentException invalid(String field, String expected, JsonNode found) {
    String shown = found.toString();
    if (shown.length() > 100) {
      shown = shown.substring(0, 100) + "...";
    }
    return new IllegalArgumentException("invalid field " + field + ": expected " + expected + ", found " + shown);
  }
}
