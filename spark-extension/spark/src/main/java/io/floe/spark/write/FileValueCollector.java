package io.floe.spark.write;

import io.floe.spark.util.SparkValues;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Gathers, while one data file is written, the distinct values and whether there is a null of each
 * {@link IndexedColumns indexed column}. A column whose distinct values pass the limit is given up
 * for this file (its values are dropped: the file stays uncovered by that column's indexes).
 */
final class FileValueCollector {
  /**
   * What one file holds in one indexed column, as it travels to the driver: binary values as
   * {@code byte[]}, since ByteBuffer is not serializable ({@link #javaValues} turns them back).
   */
  record Gathered(ArrayList<Object> values, boolean containsNull) implements Serializable {
    /** The values in Floe's Java representation (binary as ByteBuffer). */
    List<Object> javaValues() {
      List<Object> out = new ArrayList<>(values.size());
      values.forEach(v -> out.add(SparkValues.fromSerializable(v)));
      return out;
    }
  }

  private final IndexedColumns columns;
  private final Map<Integer, Set<Object>> values = new HashMap<>();
  private final Set<Integer> nulls = new HashSet<>();

  FileValueCollector(IndexedColumns columns) {
    this.columns = columns;
    columns.columns().forEach(c -> values.put(c.fieldId(), new HashSet<>()));
  }

  void add(InternalRow row) {
    for (IndexedColumns.Column column : columns.columns()) {
      Set<Object> distinct = values.get(column.fieldId());
      if (distinct == null) {
        continue; // given up
      }
      Object value = column.value(row);
      if (value == null) {
        nulls.add(column.fieldId());
      } else if (distinct.add(SparkValues.toJava(column.type(), value))
          && distinct.size() > columns.maxDistinctValues()) {
        values.remove(column.fieldId());
      }
    }
  }

  /** Per field id the file's values; a column given up is absent. */
  Map<Integer, Gathered> gathered() {
    Map<Integer, Gathered> out = new HashMap<>();
    values.forEach((id, distinct) -> {
      ArrayList<Object> travelling = new ArrayList<>(distinct.size());
      distinct.forEach(v -> travelling.add(SparkValues.toSerializable(v)));
      out.put(id, new Gathered(travelling, nulls.contains(id)));
    });
    return out;
  }
}
