package io.floe.format.commit;

import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.TypeUtil;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Finds fields of a schema by path and rebuilds the schema with one field or one struct changed.
 * Paths name struct fields by name, a list's element as {@code element} and a map's parts as
 * {@code key} and {@code value}. Field ids never change here.
 */
final class SchemaTree {
  /** The parent id of top-level fields. */
  static final int ROOT = -1;

  private SchemaTree() {}

  /** What a field is to its parent. */
  enum Role { STRUCT_FIELD, ELEMENT, KEY, VALUE }

  /**
   * A field found by path: the field, the id of the field owning it ({@link #ROOT} for top-level
   * fields), its role, and whether the path runs through a map key.
   */
  record Located(Types.NestedField field, int parentId, Role role, boolean inMapKey) {}

  /** The field at {@code path}, or null. Names match exactly, else case-insensitively when only one field matches. */
  static Located locate(Schema schema, List<String> path) {
    Type type = schema.asStruct();
    int parentId = ROOT;
    boolean inKey = false;
    Located found = null;
    for (String name : path) {
      Types.NestedField next = null;
      Role role = Role.STRUCT_FIELD;
      switch (type.typeId()) {
        case STRUCT:
          next = field(type.asStructType(), name);
          break;
        case LIST:
          role = Role.ELEMENT;
          next = "element".equals(name) ? type.asListType().elementField() : null;
          break;
        case MAP:
          role = "key".equals(name) ? Role.KEY : Role.VALUE;
          next = "key".equals(name) ? type.asMapType().keyField()
              : "value".equals(name) ? type.asMapType().valueField() : null;
          break;
        default:
          break;
      }
      if (next == null) {
        return null;
      }
      inKey |= role == Role.KEY;
      found = new Located(next, parentId, role, inKey);
      parentId = next.fieldId();
      type = next.type();
    }
    return found;
  }

  static Types.NestedField field(Types.StructType struct, String name) {
    Types.NestedField exact = struct.field(name);
    if (exact != null) {
      return exact;
    }
    Types.NestedField match = null;
    for (Types.NestedField f : struct.fields()) {
      if (f.name().equalsIgnoreCase(name)) {
        if (match != null) {
          return null;
        }
        match = f;
      }
    }
    return match;
  }

  /** The struct whose fields have parent {@code parentId}: the schema itself, a struct, or a struct element/value. */
  static Types.StructType struct(Schema schema, int parentId) {
    return parentId == ROOT ? schema.asStruct() : schema.findField(parentId).type().asStructType();
  }

  /** The ids of a field and of everything nested in it. */
  static Set<Integer> idsWithin(Types.NestedField field) {
    return new HashSet<>(TypeUtil.indexById(Types.StructType.of(field)).keySet());
  }

  /** The schema with field {@code id} replaced by {@code change} applied to it (null drops it). */
  static Schema replaceField(Schema schema, int id, UnaryOperator<Types.NestedField> change) {
    return rebuild(schema, new Edit() {
      @Override
      public Types.NestedField field(Types.NestedField f) {
        return f.fieldId() == id ? change.apply(f) : f;
      }
    });
  }

  /** The schema with the fields of the struct owned by {@code parentId} replaced by {@code change}. */
  static Schema replaceFields(Schema schema, int parentId, UnaryOperator<List<Types.NestedField>> change) {
    return rebuild(schema, new Edit() {
      @Override
      public List<Types.NestedField> fields(int ownerId, List<Types.NestedField> fields) {
        return ownerId == parentId ? change.apply(fields) : fields;
      }
    });
  }

  private interface Edit {
    default Types.NestedField field(Types.NestedField f) {
      return f;
    }

    default List<Types.NestedField> fields(int ownerId, List<Types.NestedField> fields) {
      return fields;
    }
  }

  private static Schema rebuild(Schema schema, Edit edit) {
    return new Schema(schema.schemaId(), editFields(ROOT, schema.columns(), edit), schema.identifierFieldIds());
  }

  private static List<Types.NestedField> editFields(int ownerId, List<Types.NestedField> fields, Edit edit) {
    List<Types.NestedField> out = new ArrayList<>(fields.size() + 1);
    for (Types.NestedField f : fields) {
      Types.NestedField edited = edit.field(f);
      if (edited != null) {
        out.add(edited.withType(editType(edited.fieldId(), edited.type(), edit)));
      }
    }
    return edit.fields(ownerId, out);
  }

  private static Types.NestedField editPart(Types.NestedField part, Edit edit) {
    Types.NestedField edited = edit.field(part);
    if (edited == null) {
      throw new IllegalStateException("Cannot drop the element, key or value field " + part.fieldId());
    }
    return edited.withType(editType(edited.fieldId(), edited.type(), edit));
  }

  private static Type editType(int ownerId, Type type, Edit edit) {
    switch (type.typeId()) {
      case STRUCT:
        return Types.StructType.of(editFields(ownerId, type.asStructType().fields(), edit));
      case LIST: {
        Types.NestedField element = editPart(type.asListType().elementField(), edit);
        return element.isOptional() ? Types.ListType.ofOptional(element.fieldId(), element.type())
            : Types.ListType.ofRequired(element.fieldId(), element.type());
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        Types.NestedField key = editPart(map.keyField(), edit);
        Types.NestedField value = editPart(map.valueField(), edit);
        return value.isOptional()
            ? Types.MapType.ofOptional(key.fieldId(), value.fieldId(), key.type(), value.type())
            : Types.MapType.ofRequired(key.fieldId(), value.fieldId(), key.type(), value.type());
      }
      default:
        return type;
    }
  }
}
