package io.floe.spark.write;

import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListFiles;
import io.floe.format.index.TableIndex;
import io.floe.format.io.FileIO;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.types.Types;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The columns whose values writers gather per data file for the table's {@code sync} indexes
 * (docs/indexes.md, "Keeping it current"), by field id, with their place in the written rows:
 * rows are written by position, one column per table column and one struct field per field, so a
 * field nested in structs is found by the positions of its parents and its own.
 */
record IndexedColumns(List<Column> columns, int maxDistinctValues) implements Serializable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexedColumns.class);
  /** Distinct values of one column in one file past which the file is left uncovered, bounding writer memory. */
  static final int DEFAULT_MAX_DISTINCT_VALUES = 1_000_000;

  /**
   * One gathered column: its field id, the positions leading to it ({@code [2, 0]}: field 0 of the
   * struct in column 2), the field counts of the structs on the way, and its Spark type.
   */
  record Column(int fieldId, int[] path, int[] structWidths, DataType type) implements Serializable {
    /** The row or struct holding the column in {@code row} (at {@link #ordinal}); null when a struct on the way is null. */
    InternalRow holder(InternalRow row) {
      InternalRow current = row;
      for (int level = 0; level < path.length - 1; level++) {
        if (current.isNullAt(path[level])) {
          return null;
        }
        current = current.getStruct(path[level], structWidths[level]);
      }
      return current;
    }

    /** The column's position in its {@link #holder}. */
    int ordinal() {
      return path[path.length - 1];
    }
  }

  static IndexedColumns none() {
    return new IndexedColumns(List.of(), DEFAULT_MAX_DISTINCT_VALUES);
  }

  /** The columns of {@code base}'s sync indexes; none when the index list cannot be read (the write goes on). */
  static IndexedColumns of(FileIO io, String table, TableMetadata base, StructType rowType) {
    IndexList list;
    try {
      list = IndexListFiles.read(io, table, base.properties());
    } catch (RuntimeException e) {
      LOG.warn("Cannot read the index list of table {}: this write leaves its new files uncovered by indexes", table,
          e);
      return none();
    }
    Set<Integer> fieldIds = new LinkedHashSet<>();
    list.indexes().stream().filter(i -> !i.isDeferred()).map(TableIndex::sourceFieldId).forEach(fieldIds::add);
    List<Column> columns = new ArrayList<>();
    for (int fieldId : fieldIds) {
      Column column = find(base.schema().asStruct(), rowType, fieldId, new ArrayList<>(), new ArrayList<>());
      if (column != null) {
        columns.add(column);
      }
    }
    return new IndexedColumns(List.copyOf(columns), DEFAULT_MAX_DISTINCT_VALUES);
  }

  /** The column of {@code fieldId} in {@code struct}, written as {@code rowType}; null when it is not there. */
  private static Column find(Types.StructType struct, StructType rowType, int fieldId, List<Integer> path,
      List<Integer> widths) {
    List<Types.NestedField> fields = struct.fields();
    for (int position = 0; position < fields.size() && position < rowType.length(); position++) {
      Types.NestedField field = fields.get(position);
      DataType type = rowType.fields()[position].dataType();
      path.add(position);
      if (field.fieldId() == fieldId) {
        return new Column(fieldId, toArray(path), toArray(widths), type);
      }
      if (field.type().isStructType() && type instanceof StructType nested) {
        widths.add(nested.length());
        Column found = find(field.type().asStructType(), nested, fieldId, path, widths);
        if (found != null) {
          return found;
        }
        widths.remove(widths.size() - 1);
      }
      path.remove(path.size() - 1);
    }
    return null;
  }

  private static int[] toArray(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }

  boolean isEmpty() {
    return columns.isEmpty();
  }
}
