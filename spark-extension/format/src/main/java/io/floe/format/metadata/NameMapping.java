package io.floe.format.metadata;

import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.util.List;

/**
 * The table property {@code schema.name-mapping.default} (the spec's "Column Projection"): for data
 * files written without Parquet field ids, which field id each column name stands for. Iceberg's
 * readers need it to read such files; Floe writes it when {@code add_files} imports them. The JSON is a
 * list of {@code {"field-id": id, "names": [name], "fields": [...]}}, nested for structs, list elements
 * ({@code element}) and map keys and values ({@code key}, {@code value}).
 */
public final class NameMapping {
  public static final String DEFAULT = "schema.name-mapping.default";

  private NameMapping() {}

  /** The mapping of every field of {@code schema} to its current name. */
  public static String of(Schema schema) {
    return JsonUtil.generate(gen -> fields(gen, schema.columns()));
  }

  private static void fields(com.fasterxml.jackson.core.JsonGenerator gen, List<Types.NestedField> fields)
      throws IOException {
    gen.writeStartArray();
    for (Types.NestedField field : fields) {
      gen.writeStartObject();
      gen.writeNumberField("field-id", field.fieldId());
      gen.writeArrayFieldStart("names");
      gen.writeString(field.name());
      gen.writeEndArray();
      List<Types.NestedField> children = children(field.type());
      if (!children.isEmpty()) {
        gen.writeFieldName("fields");
        fields(gen, children);
      }
      gen.writeEndObject();
    }
    gen.writeEndArray();
  }

  private static List<Types.NestedField> children(Type type) {
    if (type instanceof Types.StructType struct) {
      return struct.fields();
    }
    if (type instanceof Types.ListType list) {
      return List.of(list.elementField());
    }
    if (type instanceof Types.MapType map) {
      return List.of(map.keyField(), map.valueField());
    }
    return List.of();
  }
}
