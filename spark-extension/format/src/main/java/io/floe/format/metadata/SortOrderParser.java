package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.partition.Transform;
import io.floe.format.partition.Transforms;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.util.List;

/** Sort order JSON: {@code {"order-id": N, "fields": [{transform, source-id, direction, null-order}]}}. */
public final class SortOrderParser {
  private SortOrderParser() {}

  private static final String ORDER_ID = "order-id";
  private static final String FIELDS = "fields";
  private static final String TRANSFORM = "transform";
  private static final String SOURCE_ID = "source-id";
  private static final String DIRECTION = "direction";
  private static final String NULL_ORDER = "null-order";

  public static String toJson(SortOrder order) {
    return JsonUtil.generate(gen -> toJson(order, gen));
  }

  public static void toJson(SortOrder order, JsonGenerator gen) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField(ORDER_ID, order.orderId());
    gen.writeArrayFieldStart(FIELDS);
    for (SortField field : order.fields()) {
      gen.writeStartObject();
      gen.writeStringField(TRANSFORM, field.transform().toString());
      gen.writeNumberField(SOURCE_ID, field.sourceId());
      gen.writeStringField(DIRECTION, field.direction().jsonName());
      gen.writeStringField(NULL_ORDER, field.nullOrder().jsonName());
      gen.writeEndObject();
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }

  public static SortOrder fromJson(String json) {
    try {
      return fromJson(JsonUtil.parse(json));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot parse sort order: " + e.getMessage(), e);
    }
  }

  public static SortOrder fromJson(JsonNode node) {
    int orderId = JsonUtil.getInt(ORDER_ID, node);
    JsonUtil.get(FIELDS, node);
    List<SortField> fields = JsonUtil.getList(FIELDS, node, SortOrderParser::fieldFromJson);
    return new SortOrder(orderId, fields);
  }

  private static SortField fieldFromJson(JsonNode node) {
    Transform transform;
    String name = JsonUtil.getString(TRANSFORM, node);
    try {
      transform = Transforms.fromString(name);
    } catch (IllegalArgumentException e) {
      throw JsonUtil.invalid(TRANSFORM, "a transform", node.get(TRANSFORM));
    }
    SortDirection direction;
    NullOrder nullOrder;
    try {
      direction = SortDirection.fromString(JsonUtil.getString(DIRECTION, node));
    } catch (IllegalArgumentException e) {
      throw rethrowIfMissing(e, DIRECTION, "asc or desc", node);
    }
    try {
      nullOrder = NullOrder.fromString(JsonUtil.getString(NULL_ORDER, node));
    } catch (IllegalArgumentException e) {
      throw rethrowIfMissing(e, NULL_ORDER, "nulls-first or nulls-last", node);
    }
    return new SortField(transform, JsonUtil.getInt(SOURCE_ID, node), direction, nullOrder);
  }

  private static IllegalArgumentException rethrowIfMissing(IllegalArgumentException e, String field,
      String expected, JsonNode node) {
    return JsonUtil.isAbsent(field, node) ? e : JsonUtil.invalid(field, expected, node.get(field));
  }
}
