package io.floe.spark.metadata;

import io.floe.format.manifest.ContentFile;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.TypeUtil;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.util.SparkValues;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The {@code readable_metrics} column of the file tables and {@code entries}: for every primitive
 * column of the current schema (nested ones by full name, such as {@code st.x} or {@code arr.element}),
 * in name order, a struct of its column size, value, null and NaN counts, and its lower and upper
 * bounds decoded to the column's type. A metric the file does not record is null, and so is a bound
 * that does not decode as the column's current type (one written before a type promotion).
 */
final class ReadableMetrics {
  private final List<Integer> ids = new ArrayList<>();
  private final List<Type> types = new ArrayList<>();
  private final StructType sparkType;

  ReadableMetrics(Schema schema) {
    Map<String, Integer> sorted = new TreeMap<>(TypeUtil.indexByName(schema.asStruct()));
    StructType type = new StructType();
    for (Map.Entry<String, Integer> e : sorted.entrySet()) {
      Type columnType = schema.findType(e.getValue());
      if (columnType == null || !columnType.isPrimitiveType()) {
        continue;
      }
      ids.add(e.getValue());
      types.add(columnType);
      type = type.add(e.getKey(), new StructType()
          .add("column_size", DataTypes.LongType, true)
          .add("value_count", DataTypes.LongType, true)
          .add("null_value_count", DataTypes.LongType, true)
          .add("nan_value_count", DataTypes.LongType, true)
          .add("lower_bound", SparkSchemas.convert(columnType), true)
          .add("upper_bound", SparkSchemas.convert(columnType), true), true);
    }
    this.sparkType = type;
  }

  StructType sparkType() {
    return sparkType;
  }

  InternalRow row(ContentFile file) {
    Object[] columns = new Object[ids.size()];
    for (int i = 0; i < columns.length; i++) {
      int id = ids.get(i);
      Type type = types.get(i);
      columns[i] = new GenericInternalRow(new Object[] {file.columnSizes().get(id), file.valueCounts().get(id),
          file.nullValueCounts().get(id), file.nanValueCounts().get(id), bound(type, file.lowerBounds().get(id)),
          bound(type, file.upperBounds().get(id))});
    }
    return new GenericInternalRow(columns);
  }

  private static Object bound(Type type, ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    try {
      return SparkValues.toCatalyst(type, Conversions.fromByteBuffer(type, buffer));
    } catch (RuntimeException e) {
      return null;
    }
  }
}
