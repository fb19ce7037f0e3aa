package io.floe.format.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The table property {@code schema.name-mapping.default} (the spec's "Column Projection"): for data
 * files written without Parquet field ids, which field id each column name stands for. Readers
 * apply it to such files (a file column takes the id of the mapped field that lists its name), so a
 * renamed column still finds its data; Floe writes it when {@code add_files} imports such files and
 * keeps it current through schema changes ({@link #updatedFor}). The JSON is a list of
 * {@code {"field-id": id, "names": [name, ...], "fields": [...]}}, nested for structs, list elements
 * ({@code element}) and map keys and values ({@code key}, {@code value}). Immutable.
 */
public final class NameMapping {
  public static final String DEFAULT = "schema.name-mapping.default";

  /** One mapped field: its id (null: names that map to no field), its names, and its children. */
  public record MappedField(Integer fieldId, List<String> names, List<MappedField> fields) {
    public MappedField {
      names = List.copyOf(names);
      fields = List.copyOf(fields);
    }

    /** The child (of this struct, list or map) whose names include {@code name}, or null. */
    public MappedField child(String name) {
      return find(fields, name);
    }
  }

  private final List<MappedField> fields;

  private NameMapping(List<MappedField> fields) {
    this.fields = List.copyOf(fields);
  }

  /** The mapping of every field of {@code schema} to its current name. */
  public static NameMapping of(Schema schema) {
    return new NameMapping(mapped(schema.columns()));
  }

  /** Parses the property's JSON; throws IllegalArgumentException naming the problem. */
  public static NameMapping parse(String json) {
    JsonNode root = JsonUtil.parse(json);
    return new NameMapping(parseFields(root, DEFAULT));
  }

  public List<MappedField> fields() {
    return fields;
  }

  /** The top-level field whose names include {@code name}, or null. */
  public MappedField field(String name) {
    return find(fields, name);
  }

  /**
   * The mapping after a schema change: every field of {@code schema} keeps the names it had and
   * gets its current name, new fields are added, and a name now used by another field moves to it
   * (so a dropped column's name, reused by a new column, maps to the new one). Fields no longer in
   * the schema keep their remaining names, so files that hold them still map.
   */
  public NameMapping updatedFor(Schema schema) {
    Map<Integer, MappedField> byId = new HashMap<>();
    index(fields, byId);
    return new NameMapping(merge(fields, schema.columns(), byId));
  }

  public String toJson() {
    return JsonUtil.generate(gen -> write(gen, fields));
  }

  @Override
  public String toString() {
    return toJson();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NameMapping that && fields.equals(that.fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  private static MappedField find(List<MappedField> fields, String name) {
    for (MappedField f : fields) {
      if (f.names().contains(name)) {
        return f;
      }
    }
    return null;
  }

  private static List<MappedField> mapped(List<Types.NestedField> schemaFields) {
    List<MappedField> out = new ArrayList<>();
    for (Types.NestedField field : schemaFields) {
      out.add(new MappedField(field.fieldId(), List.of(field.name()), mapped(children(field.type()))));
    }
    return out;
  }

  /**
   * One level: the schema's fields (old names first, then the current one) followed by the old
   * level's fields that are not in the schema, minus the names the schema's fields now use.
   */
  private static List<MappedField> merge(List<MappedField> oldLevel, List<Types.NestedField> schemaFields,
      Map<Integer, MappedField> byId) {
    Set<String> taken = new HashSet<>();
    Set<Integer> ids = new HashSet<>();
    for (Types.NestedField field : schemaFields) {
      taken.add(field.name());
      ids.add(field.fieldId());
    }
    List<MappedField> out = new ArrayList<>();
    for (Types.NestedField field : schemaFields) {
      MappedField before = byId.get(field.fieldId());
      Set<String> names = new LinkedHashSet<>();
      if (before != null) {
        for (String name : before.names()) {
          if (!taken.contains(name) || name.equals(field.name())) {
            names.add(name);
          }
        }
      }
      names.add(field.name());
      List<MappedField> oldChildren = before == null ? List.of() : before.fields();
      out.add(new MappedField(field.fieldId(), new ArrayList<>(names),
          merge(oldChildren, children(field.type()), byId)));
    }
    for (MappedField gone : oldLevel) {
      if (gone.fieldId() != null && ids.contains(gone.fieldId())) {
        continue;
      }
      List<String> names = new ArrayList<>();
      for (String name : gone.names()) {
        if (!taken.contains(name)) {
          names.add(name);
        }
      }
      if (!names.isEmpty()) {
        out.add(new MappedField(gone.fieldId(), names, gone.fields()));
      }
    }
    return out;
  }

  private static void index(List<MappedField> fields, Map<Integer, MappedField> byId) {
    for (MappedField f : fields) {
      if (f.fieldId() != null) {
        byId.put(f.fieldId(), f);
      }
      index(f.fields(), byId);
    }
  }

  private static List<MappedField> parseFields(JsonNode node, String where) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new IllegalArgumentException("Invalid " + where + ": expected a list of mapped fields, got " + node);
    }
    List<MappedField> out = new ArrayList<>();
    for (JsonNode f : node) {
      if (!f.isObject()) {
        throw new IllegalArgumentException("Invalid " + where + ": expected a mapped field object, got " + f);
      }
      JsonNode id = f.get("field-id");
      if (id != null && !id.isNull() && !id.canConvertToInt()) {
        throw new IllegalArgumentException("Invalid " + where + ": field-id " + id + " is not an int");
      }
      JsonNode names = f.get("names");
      if (names == null || !names.isArray()) {
        throw new IllegalArgumentException("Invalid " + where + ": mapped field " + f + " has no names list");
      }
      List<String> nameList = new ArrayList<>();
      for (JsonNode name : names) {
        if (!name.isTextual()) {
          throw new IllegalArgumentException("Invalid " + where + ": name " + name + " is not a string");
        }
        nameList.add(name.asText());
      }
      out.add(new MappedField(id == null || id.isNull() ? null : id.asInt(), nameList,
          parseFields(f.get("fields"), where)));
    }
    return Collections.unmodifiableList(out);
  }

  private static void write(com.fasterxml.jackson.core.JsonGenerator gen, List<MappedField> fields)
      throws IOException {
    gen.writeStartArray();
    for (MappedField field : fields) {
      gen.writeStartObject();
      if (field.fieldId() != null) {
        gen.writeNumberField("field-id", field.fieldId());
      }
      gen.writeArrayFieldStart("names");
      for (String name : field.names()) {
        gen.writeString(name);
      }
      gen.writeEndArray();
      if (!field.fields().isEmpty()) {
        gen.writeFieldName("fields");
        write(gen, field.fields());
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
