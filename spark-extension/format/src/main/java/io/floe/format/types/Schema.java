package io.floe.format.types;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** A table schema: top-level fields with ids, a schema id, and identifier field ids. Immutable. */
public final class Schema {
  private final int schemaId;
  private final Types.StructType struct;
  private final Set<Integer> identifierFieldIds;
  private transient Map<Integer, Types.NestedField> idToField;
  private transient Map<String, Integer> nameToId;
  private transient Map<Integer, String> idToName;

  public Schema(int schemaId, List<Types.NestedField> columns, Set<Integer> identifierFieldIds) {
    this.schemaId = schemaId;
    this.struct = Types.StructType.of(columns);
    this.identifierFieldIds = Collections.unmodifiableSet(new TreeSet<>(identifierFieldIds));
    for (int id : this.identifierFieldIds) {
      if (findField(id) == null) {
        throw new IllegalArgumentException("Cannot find identifier field id " + id + " in schema");
      }
    }
  }

  public Schema(int schemaId, List<Types.NestedField> columns) {
    this(schemaId, columns, Set.of());
  }

  public Schema(List<Types.NestedField> columns) {
    this(0, columns, Set.of());
  }

  public Schema(Types.NestedField... columns) {
    this(0, List.of(columns), Set.of());
  }

  public int schemaId() {
    return schemaId;
  }

  public List<Types.NestedField> columns() {
    return struct.fields();
  }

  public Types.StructType asStruct() {
    return struct;
  }

  public Set<Integer> identifierFieldIds() {
    return identifierFieldIds;
  }

  public Schema withSchemaId(int newId) {
    return new Schema(newId, columns(), identifierFieldIds);
  }

  /** Any field, nested ones included, by id; null if absent. */
  public Types.NestedField findField(int id) {
    if (idToField == null) {
      idToField = TypeUtil.indexById(struct);
    }
    return idToField.get(id);
  }

  /** Any field by its dotted full name ({@code a.b}, list elements as {@code a.element}); null if absent. */
  public Types.NestedField findField(String name) {
    Integer id = idFor(name);
    return id == null ? null : findField(id);
  }

  public Integer idFor(String name) {
    if (nameToId == null) {
      nameToId = TypeUtil.indexByName(struct);
    }
    return nameToId.get(name);
  }

  /** The dotted full name of a field id, or null. */
  public String findColumnName(int id) {
    if (idToName == null) {
      Map<Integer, String> inverse = new java.util.HashMap<>();
      if (nameToId == null) {
        nameToId = TypeUtil.indexByName(struct);
      }
      nameToId.forEach((n, i) -> inverse.put(i, n));
      idToName = inverse;
    }
    return idToName.get(id);
  }

  /**
   * The names from the top-level column down to field {@code id} through structs ({@code [a, b]}
   * for {@code a.b}), or null when it is not there or inside a list or map. Unlike
   * {@link #findColumnName}, a column whose own name holds a dot ({@code `v1.2`}) stays one part,
   * so an engine's parser can be given the path quoted part by part.
   */
  public List<String> findColumnPath(int id) {
    List<String> parts = new ArrayList<>();
    return collectPath(struct, id, parts) ? List.copyOf(parts) : null;
  }

  private static boolean collectPath(Types.StructType in, int id, List<String> parts) {
    for (Types.NestedField f : in.fields()) {
      parts.add(f.name());
      if (f.fieldId() == id || (f.type().isStructType() && collectPath(f.type().asStructType(), id, parts))) {
        return true;
      }
      parts.remove(parts.size() - 1);
    }
    return false;
  }

  public Type findType(int id) {
    Types.NestedField f = findField(id);
    return f == null ? null : f.type();
  }

  public int highestFieldId() {
    return TypeUtil.indexById(struct).keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  /** A schema with only the named top-level columns, in schema order. */
  public Schema select(List<String> names) {
    List<Types.NestedField> kept = new ArrayList<>();
    for (Types.NestedField f : columns()) {
      if (names.contains(f.name())) {
        kept.add(f);
      }
    }
    return new Schema(schemaId, kept);
  }

  /** True when both schemas have the same fields (ids, names, types), whatever their schema ids. */
  public boolean sameSchema(Schema other) {
    return struct.equals(other.struct) && identifierFieldIds.equals(other.identifierFieldIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schema && schemaId == ((Schema) o).schemaId && sameSchema((Schema) o);
  }

  @Override
  public int hashCode() {
    return struct.hashCode() * 31 + schemaId;
  }

  @Override
  public String toString() {
    return "table {\n  " + String.join("\n  ", columns().stream().map(Object::toString).toList()) + "\n}";
  }
}
