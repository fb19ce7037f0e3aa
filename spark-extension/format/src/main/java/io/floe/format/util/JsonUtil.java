package io.floe.format.util;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Small helpers for the hand-written JSON parsers: typed getters that name a missing field. */
public final class JsonUtil {
  private JsonUtil() {}

  private static final JsonFactory FACTORY = new JsonFactory();
  private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY)
      .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  public interface ToJson {
    void generate(JsonGenerator gen) throws IOException;
  }

  public static String generate(ToJson body) {
    return generate(body, false);
  }

  /**
   * Writes characters outside the BMP as 4-byte UTF-8, not as escaped surrogates: as a String's
   * UTF-8 does. (A lone surrogate, which a String can hold, is escaped as {@code \\uXXXX}.)
   */
  private static final JsonFactory BYTES_FACTORY = JsonFactory.builder()
      .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();

  /** A compact generator writing UTF-8 straight into {@code out}, the one for JSON written as bytes. */
  public static JsonGenerator bytesGenerator(OutputStream out) throws IOException {
    return BYTES_FACTORY.createGenerator(out, JsonEncoding.UTF8);
  }

  /** The JSON {@code body} writes, as UTF-8 bytes from {@link #bytesGenerator}. */
  public static byte[] generateBytes(ToJson body, int sizeHint) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
    try (JsonGenerator gen = bytesGenerator(out)) {
      body.generate(gen);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write JSON", e);
    }
    return out.toByteArray();
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

  /**
   * The value of a required field. Errors here and below say {@code missing field: x} or
   * {@code invalid field x: expected ..., found ...}; the parsers' entry points prefix them with what
   * was being parsed (and the file).
   */
  public static JsonNode get(String field, JsonNode node) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new IllegalArgumentException("missing field: " + field);
    }
    return value;
  }

  public static boolean isAbsent(String field, JsonNode node) {
    JsonNode value = node.get(field);
    return value == null || value.isNull();
  }

  public static int getInt(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(field, "an int", value);
    }
    return value.intValue();
  }

  public static Integer getIntOrNull(String field, JsonNode node) {
    return isAbsent(field, node) ? null : getInt(field, node);
  }

  public static long getLong(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw invalid(field, "a long", value);
    }
    return value.longValue();
  }

  public static Long getLongOrNull(String field, JsonNode node) {
    return isAbsent(field, node) ? null : getLong(field, node);
  }

  public static String getString(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isTextual()) {
      throw invalid(field, "a string", value);
    }
    return value.asText();
  }

  public static String getStringOrNull(String field, JsonNode node) {
    return isAbsent(field, node) ? null : getString(field, node);
  }

  public static boolean getBool(String field, JsonNode node) {
    JsonNode value = get(field, node);
    if (!value.isBoolean()) {
      throw invalid(field, "true or false", value);
    }
    return value.asBoolean();
  }

  /** A string map; absent means empty. Scalar values are kept as text, null values are dropped. */
  public static Map<String, String> getStringMap(String field, JsonNode node) {
    Map<String, String> out = new LinkedHashMap<>();
    if (isAbsent(field, node)) {
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

  public static List<Integer> getIntList(String field, JsonNode node) {
    JsonNode value = get(field, node);
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
  public static <T> List<T> getList(String field, JsonNode node, Function<JsonNode, T> parse) {
    List<T> out = new ArrayList<>();
    if (isAbsent(field, node)) {
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

  /** {@code invalid field x: expected ..., found ...}, the found value cut at 100 characters. */
  public static IllegalArgumentException invalid(String field, String expected, JsonNode found) {
    String shown = found == null ? "nothing" : found.toString();
    if (shown.length() > 100) {
      shown = shown.substring(0, 100) + "...";
    }
    return new IllegalArgumentException("invalid field " + field + ": expected " + expected + ", found " + shown);
  }

  public static void writeStringMap(String field, Map<String, String> map, JsonGenerator gen) throws IOException {
    gen.writeObjectFieldStart(field);
    for (Map.Entry<String, String> e : map.entrySet()) {
      gen.writeStringField(e.getKey(), e.getValue());
    }
    gen.writeEndObject();
  }
}
