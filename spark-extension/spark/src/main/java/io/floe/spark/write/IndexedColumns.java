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
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The columns whose values writers gather per data file for the table's {@code sync} indexes
 * (docs/indexes.md, "Keeping it current"): top-level columns by field id, with their position in
 * the written rows (rows are written by position, one column per table column). Nested and binary
 * columns are not gathered: their new files stay uncovered until rewrite_index.
 */
record IndexedColumns(List<Column> columns, int maxDistinctValues) implements Serializable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexedColumns.class);
  /** Distinct values of one column in one file past which the file is left uncovered, bounding writer memory. */
  static final int DEFAULT_MAX_DISTINCT_VALUES = 1_000_000;

  /** One gathered column: its field id, position in the row, and Spark type. */
  record Column(int fieldId, int position, DataType type) implements Serializable {
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
    List<Types.NestedField> top = base.schema().columns();
    for (int position = 0; position < top.size() && position < rowType.length(); position++) {
      DataType type = rowType.fields()[position].dataType();
      if (fieldIds.contains(top.get(position).fieldId()) && !(type instanceof BinaryType)) {
        columns.add(new Column(top.get(position).fieldId(), position, type));
      }
    }
    return new IndexedColumns(List.copyOf(columns), DEFAULT_MAX_DISTINCT_VALUES);
  }

  boolean isEmpty() {
    return columns.isEmpty();
  }
}
