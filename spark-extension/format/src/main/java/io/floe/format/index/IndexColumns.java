package io.floe.format.index;

import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.List;
import java.util.Locale;

/**
 * Resolves the column an index is created on: a top-level column or a field nested in structs, by
 * name parts ({@code ["a", "b"]} for {@code a.b}), exact case first, then ignoring case. A field
 * inside a list or map cannot be indexed (one row holds many values), so such a path resolves to
 * nothing.
 */
public final class IndexColumns {
  private IndexColumns() {}

  /** The field at {@code path} in {@code schema}, or null when there is none (or it sits in a list or map). */
  public static Types.NestedField resolve(Schema schema, List<String> path) {
    if (path.isEmpty()) {
      return null;
    }
    Types.StructType struct = schema.asStruct();
    Types.NestedField field = null;
    for (String part : path) {
      if (struct == null) {
        return null;
      }
      field = find(struct, part);
      if (field == null) {
        return null;
      }
      Type type = field.type();
      struct = type.isStructType() ? type.asStructType() : null;
    }
    return field;
  }

  /**
   * The name parts of the list or map column that {@code path} reaches into ({@code ["arr"]} for
   * {@code arr.y} when {@code arr} is an array), or null when the path does not pass one.
   */
  public static List<String> collectionOnPath(Schema schema, List<String> path) {
    Types.StructType struct = schema.asStruct();
    for (int i = 0; i < path.size() - 1 && struct != null; i++) {
      Types.NestedField field = find(struct, path.get(i));
      if (field == null) {
        return null;
      }
      Type.TypeID id = field.type().typeId();
      if (id == Type.TypeID.LIST || id == Type.TypeID.MAP) {
        return IndexColumns.path(schema, field.fieldId());
      }
      struct = field.type().isStructType() ? field.type().asStructType() : null;
    }
    return null;
  }

  private static Types.NestedField find(Types.StructType struct, String name) {
    Types.NestedField exact = struct.field(name);
    if (exact != null) {
      return exact;
    }
    for (Types.NestedField f : struct.fields()) {
      if (f.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return f;
      }
    }
    return null;
  }

  /** The name parts of field {@code fieldId} in {@code schema} ({@code ["a", "b"]}), or null when it is not there. */
  public static List<String> path(Schema schema, int fieldId) {
    return schema.findColumnPath(fieldId);
  }
}
