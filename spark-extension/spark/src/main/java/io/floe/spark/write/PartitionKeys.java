package io.floe.spark.write;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import io.floe.spark.SparkValues;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/** Computes a row's partition tuple: source column values (top-level) through the spec's transforms. */
final class PartitionKeys implements Serializable {
  private final int[] ordinals;
  private final DataType[] types;
  private final List<PartitionField> fields;

  PartitionKeys(PartitionSpec spec, Schema schema, StructType rowType) {
    this.fields = spec.fields();
    this.ordinals = new int[fields.size()];
    this.types = new DataType[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField source = schema.findField(fields.get(i).sourceId());
      String name = schema.findColumnName(fields.get(i).sourceId());
      if (source == null || name.contains(".")) {
        throw new IllegalArgumentException("Cannot write partition field " + fields.get(i).name()
            + ": its source column must be a top-level column of the table");
      }
      ordinals[i] = rowType.fieldIndex(name);
      types[i] = rowType.fields()[ordinals[i]].dataType();
    }
  }

  boolean isUnpartitioned() {
    return fields.isEmpty();
  }

  Object[] partition(InternalRow row) {
    Object[] values = new Object[fields.size()];
    for (int i = 0; i < values.length; i++) {
      Object catalyst = row.isNullAt(ordinals[i]) ? null : row.get(ordinals[i], types[i]);
      values[i] = fields.get(i).transform().apply(SparkValues.toJava(types[i], catalyst));
    }
    return values;
  }
}
