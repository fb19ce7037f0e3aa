package io.floe.format.types;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/** Walks over types: indexes by id and name, and assigns fresh field ids. */
public final class TypeUtil {
  private TypeUtil() {}

  public static Map<Integer, Types.NestedField> indexById(Types.StructType struct) {
    Map<Integer, Types.NestedField> index = new HashMap<>();
    visitFields(struct, (name, field) -> {
      if (index.put(field.fieldId(), field) != null) {
        throw new IllegalArgumentException("Invalid schema: field id " + field.fieldId() + " is used more than once");
      }
    });
    return index;
  }

  /** Full dotted names to ids; list elements as {@code x.element}, map parts as {@code x.key}/{@code x.value}. */
  public static Map<String, Integer> indexByName(Types.StructType struct) {
    Map<String, Integer> index = new LinkedHashMap<>();
    visitFields(struct, (name, field) -> index.put(name, field.fieldId()));
    return index;
  }

  /**
   * A full dotted name that two fields of {@code struct} share (a top-level {@code `a.b`} and field
   * {@code b} of struct {@code a}), or null when every full name is unique.
   */
  public static String duplicateFullName(Types.StructType struct) {
    Map<String, Integer> index = new HashMap<>();
    String[] duplicate = {null};
    visitFields(struct, (name, field) -> {
      if (index.put(name, field.fieldId()) != null && duplicate[0] == null) {
        duplicate[0] = name;
      }
    });
    return duplicate[0];
  }

  private interface FieldVisitor {
    void visit(String fullName, Types.NestedField field);
  }

  private static void visitFields(Types.StructType struct, FieldVisitor visitor) {
    for (Types.NestedField f : struct.fields()) {
      visitField(f.name(), f, visitor);
    }
  }

  private static void visitField(String name, Types.NestedField field, FieldVisitor visitor) {
    visitor.visit(name, field);
    Type type = field.type();
    switch (type.typeId()) {
      case STRUCT:
        for (Types.NestedField child : type.asStructType().fields()) {
          visitField(name + "." + child.name(), child, visitor);
        }
        break;
      case LIST:
        visitField(name + ".element", type.asListType().elementField(), visitor);
        break;
      case MAP:
        visitField(name + ".key", type.asMapType().keyField(), visitor);
        visitField(name + ".value", type.asMapType().valueField(), visitor);
        break;
      default:
        break;
    }
  }

  /**
   * Assigns fresh ids the way the reference implementations do on table creation: the fields of a
   * struct get consecutive ids first, then their children, level by level.
   */
  public static Schema assignFreshIds(int schemaId, Schema schema, IntSupplier nextId) {
    List<Types.NestedField> fields = reassignStruct(schema.asStruct(), "", name -> null, nextId).fields();
    return new Schema(schemaId, fields, remapIdentifiers(schema, fields));
  }

  /**
   * Like {@link #assignFreshIds(int, Schema, IntSupplier)}, but a field whose full name exists in
   * {@code base} keeps that field's id (REPLACE TABLE does this, as the reference implementation).
   */
  public static Schema assignIds(int schemaId, Schema schema, Schema base, IntSupplier nextId) {
    List<Types.NestedField> fields = reassignStruct(schema.asStruct(), "", base::idFor, nextId).fields();
    return new Schema(schemaId, fields, remapIdentifiers(schema, fields));
  }

  private static java.util.Set<Integer> remapIdentifiers(Schema original, List<Types.NestedField> fresh) {
    java.util.Set<Integer> ids = new java.util.HashSet<>();
    Schema freshSchema = new Schema(fresh);
    for (int id : original.identifierFieldIds()) {
      ids.add(freshSchema.idFor(original.findColumnName(id)));
    }
    return ids;
  }

  /** The id a field of this full name keeps, or null for a fresh one. */
  private interface IdLookup {
    Integer idFor(String fullName);
  }

  private static int idFor(String fullName, IdLookup existing, IntSupplier nextId) {
    Integer id = existing.idFor(fullName);
    return id != null ? id : nextId.getAsInt();
  }

  private static String child(String prefix, String name) {
    return prefix.isEmpty() ? name : prefix + "." + name;
  }

  private static Types.StructType reassignStruct(Types.StructType struct, String prefix, IdLookup existing,
      IntSupplier nextId) {
    List<Integer> ids = new ArrayList<>();
    for (Types.NestedField f : struct.fields()) {
      ids.add(idFor(child(prefix, f.name()), existing, nextId));
    }
    List<Types.NestedField> out = new ArrayList<>();
    for (int i = 0; i < struct.fields().size(); i++) {
      Types.NestedField f = struct.fields().get(i);
      Type type = reassign(f.type(), child(prefix, f.name()), existing, nextId);
      out.add(Types.NestedField.of(ids.get(i), f.isOptional(), f.name(), type, f.doc()));
    }
    return Types.StructType.of(out);
  }

  private static Type reassign(Type type, String name, IdLookup existing, IntSupplier nextId) {
    switch (type.typeId()) {
      case STRUCT:
        return reassignStruct(type.asStructType(), name, existing, nextId);
      case LIST: {
        Types.ListType list = type.asListType();
        int elementId = idFor(name + ".element", existing, nextId);
        Type element = reassign(list.elementType(), name + ".element", existing, nextId);
        return list.isElementOptional() ? Types.ListType.ofOptional(elementId, element)
            : Types.ListType.ofRequired(elementId, element);
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        int keyId = idFor(name + ".key", existing, nextId);
        int valueId = idFor(name + ".value", existing, nextId);
        Type key = reassign(map.keyType(), name + ".key", existing, nextId);
        Type value = reassign(map.valueType(), name + ".value", existing, nextId);
        return map.isValueOptional() ? Types.MapType.ofOptional(keyId, valueId, key, value)
            : Types.MapType.ofRequired(keyId, valueId, key, value);
      }
      default:
        return type;
    }
  }
}
