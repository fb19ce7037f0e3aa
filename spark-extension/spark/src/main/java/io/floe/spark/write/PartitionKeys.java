package io.floe.spark.write;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkValues;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Computes a row's partition tuple: source column values through the spec's transforms. A source
 * column is top-level or inside structs (a null struct on the way gives a null source value);
 * {@code uuid} columns, which Spark holds as strings, are transformed as uuids.
 */
final class PartitionKeys implements Serializable {
  private static final int UUID_TEXT_LENGTH = 36;

  private final List<PartitionField> fields;
  /** Per field: the ordinals from the row down to the source column. */
  private final int[][] paths;
  /** Per field: the number of fields of each struct on the path (for InternalRow.getStruct). */
  private final int[][] structSizes;
  private final DataType[] types;
  private final String[] names;
  private final boolean[] uuids;

  PartitionKeys(PartitionSpec spec, Schema schema, StructType rowType) {
    this.fields = spec.fields();
    int n = fields.size();
    this.paths = new int[n][];
    this.structSizes = new int[n][];
    this.types = new DataType[n];
    this.names = new String[n];
    this.uuids = new boolean[n];
    for (int i = 0; i < n; i++) {
      int sourceId = fields.get(i).sourceId();
      List<String> path = structPath(schema.asStruct(), sourceId);
      if (path == null) {
        throw new IllegalArgumentException("Cannot write partition field " + fields.get(i).name()
            + ": its source column must be a top-level column or inside structs");
      }
      paths[i] = new int[path.size()];
      structSizes[i] = new int[path.size()];
      DataType type = rowType;
      for (int j = 0; j < path.size(); j++) {
        StructType struct = (StructType) type;
        structSizes[i][j] = struct.size();
        paths[i][j] = struct.fieldIndex(path.get(j));
        type = struct.fields()[paths[i][j]].dataType();
      }
      types[i] = type;
      names[i] = String.join(".", path);
      uuids[i] = schema.findType(sourceId).typeId() == Type.TypeID.UUID;
    }
  }

  /** The field names from the top of {@code struct} down to field {@code id} through structs only, or null. */
  private static List<String> structPath(Types.StructType struct, int id) {
    for (Types.NestedField f : struct.fields()) {
      if (f.fieldId() == id) {
        List<String> path = new ArrayList<>();
        path.add(f.name());
        return path;
      } else if (f.type().isStructType()) {
        List<String> rest = structPath(f.type().asStructType(), id);
        if (rest != null) {
          rest.add(0, f.name());
          return rest;
        }
      }
    }
    return null;
  }

  boolean isUnpartitioned() {
    return fields.isEmpty();
  }

  Object[] partition(InternalRow row) {
    Object[] values = new Object[fields.size()];
    for (int i = 0; i < values.length; i++) {
      Object value = SparkValues.toJava(types[i], sourceValue(row, i));
      if (uuids[i] && value != null) {
        value = uuid(i, (String) value);
      }
      values[i] = fields.get(i).transform().apply(value);
    }
    return values;
  }

  private Object sourceValue(InternalRow row, int field) {
    int[] path = paths[field];
    InternalRow current = row;
    for (int j = 0; j < path.length - 1; j++) {
      if (current.isNullAt(path[j])) {
        return null;
      }
      current = current.getStruct(path[j], structSizes[field][j + 1]);
    }
    int last = path[path.length - 1];
    return current.isNullAt(last) ? null : current.get(last, types[field]);
  }

  private UUID uuid(int field, String text) {
    if (text.length() == UUID_TEXT_LENGTH) {
      try {
        return UUID.fromString(text);
      } catch (IllegalArgumentException e) {
        // reported below
      }
    }
    throw new IllegalArgumentException("Invalid UUID for column " + names[field] + ": '" + text + "'");
  }
}
