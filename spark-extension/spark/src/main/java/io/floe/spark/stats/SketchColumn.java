package io.floe.spark.stats;

import io.floe.format.SchemaErrors;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A column to sketch: its name, field id, and how its Spark values map to the single-value
 * serialization ({@link Kind}). Columns are top-level primitive columns, as Iceberg sketches them;
 * nested columns (struct, list, map) cannot be sketched.
 */
record SketchColumn(String name, int fieldId, Kind kind, int precision, int scale) implements Serializable {

  /** How a Spark value is hashed (see io.floe.format.stats.ThetaUpdates). */
  enum Kind { BOOLEAN, INT, LONG, FLOAT, DOUBLE, STRING, UUID, BINARY, DECIMAL }

  /**
   * The columns named by {@code requested} (null: every top-level primitive column) in
   * {@code schema}; an unknown or nested column is an IllegalArgumentException naming it and the table.
   */
  static List<SketchColumn> resolve(Schema schema, List<String> requested, String table) {
    List<SketchColumn> out = new ArrayList<>();
    if (requested == null) {
      for (Types.NestedField field : schema.columns()) {
        Kind kind = kind(field.type());
        if (kind != null) {
          out.add(new SketchColumn(field.name(), field.fieldId(), kind, precision(field.type()), scale(field.type())));
        }
      }
      return out;
    }
    for (String name : requested) {
      Types.NestedField field = find(schema, name);
      if (field == null) {
        throw SchemaErrors.columnNotFound(name, "Cannot compute statistics of column " + name + " of table " + table
            + ": no such top-level column (columns: " + String.join(", ", names(schema)) + ")");
      }
      Kind kind = kind(field.type());
      if (kind == null) {
        throw SchemaErrors.unsupportedType(field.name(), field.type().toString(), "Cannot compute statistics of column "
            + field.name() + " of table " + table + ": type " + field.type()
            + " cannot be sketched (only primitive columns can)");
      }
      if (out.stream().noneMatch(c -> c.fieldId() == field.fieldId())) {
        out.add(new SketchColumn(field.name(), field.fieldId(), kind, precision(field.type()), scale(field.type())));
      }
    }
    return out;
  }

  private static Types.NestedField find(Schema schema, String name) {
    Types.NestedField match = null;
    for (Types.NestedField field : schema.columns()) {
      if (field.name().equals(name)) {
        return field;
      }
      if (field.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        match = match == null ? field : match;
      }
    }
    return match;
  }

  private static List<String> names(Schema schema) {
    return schema.columns().stream().map(Types.NestedField::name).toList();
  }

  private static int scale(Type type) {
    return type instanceof Types.DecimalType ? ((Types.DecimalType) type).scale() : 0;
  }

  private static int precision(Type type) {
    return type instanceof Types.DecimalType ? ((Types.DecimalType) type).precision() : 0;
  }

  /** The kind of a column type, or null when it cannot be sketched. */
  static Kind kind(Type type) {
    if (!type.isPrimitiveType()) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return Kind.BOOLEAN;
      case INTEGER:
      case DATE:
        return Kind.INT;
      case LONG:
      case TIME:
      case TIMESTAMP:
        return Kind.LONG;
      case FLOAT:
        return Kind.FLOAT;
      case DOUBLE:
        return Kind.DOUBLE;
      case STRING:
        return Kind.STRING;
      case UUID:
        return Kind.UUID;
      case FIXED:
      case BINARY:
        return Kind.BINARY;
      case DECIMAL:
        return Kind.DECIMAL;
      default:
        return null;
    }
  }
}
