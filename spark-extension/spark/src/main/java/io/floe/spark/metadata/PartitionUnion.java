package io.floe.spark.metadata;

import io.floe.format.manifest.ContentFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.util.SparkValues;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The table's partition type as metadata tables show it: one optional field per partition field id
 * that any spec has used and whose source column is still in the current schema, ordered by field
 * id, named as in the newest spec that has it (Iceberg's unified partition type). Empty when no spec
 * ever partitioned the table; metadata tables then leave out their {@code partition} column.
 */
final class PartitionUnion {
  private final Map<Integer, Types.NestedField> fieldsById;
  private final Map<Integer, Integer> positionById = new TreeMap<>();
  private final StructType sparkType;

  private PartitionUnion(Map<Integer, Types.NestedField> fieldsById) {
    this.fieldsById = fieldsById;
    List<StructField> fields = new ArrayList<>();
    for (Types.NestedField f : fieldsById.values()) {
      positionById.put(f.fieldId(), fields.size());
      fields.add(DataTypes.createStructField(f.name(), SparkSchemas.convert(f.type()), true));
    }
    this.sparkType = DataTypes.createStructType(fields);
  }

  static PartitionUnion of(TableMetadata metadata) {
    Map<Integer, Types.NestedField> byId = new TreeMap<>();
    Map<Integer, Boolean> isVoid = new TreeMap<>();
    List<PartitionSpec> specs = new ArrayList<>(metadata.specs());
    specs.sort(Comparator.comparingInt(PartitionSpec::specId).reversed());
    for (PartitionSpec spec : specs) {
      Types.StructType partitionType = spec.partitionType();
      for (int i = 0; i < spec.fields().size(); i++) {
        PartitionField field = spec.fields().get(i);
        if (metadata.schema().findType(field.sourceId()) == null) {
          continue;
        }
        Types.NestedField typed = partitionType.fields().get(i);
        Types.NestedField existing = byId.get(field.fieldId());
        if (existing == null) {
          byId.put(field.fieldId(), Types.NestedField.optional(field.fieldId(), typed.name(), typed.type()));
          isVoid.put(field.fieldId(), field.transform().isVoid());
        } else if (isVoid.get(field.fieldId()) && !field.transform().isVoid()) {
          byId.put(field.fieldId(), existing.withType(typed.type()));
          isVoid.put(field.fieldId(), false);
        }
      }
    }
    return new PartitionUnion(byId);
  }

  boolean isEmpty() {
    return fieldsById.isEmpty();
  }

  StructType sparkType() {
    return sparkType;
  }

  /** The file's partition tuple in the unified type; fields its spec does not have are null. */
  InternalRow row(ContentFile file, PartitionSpec spec) {
    return row(values(file, spec));
  }

  /** The file's partition values (Floe Java values) in the unified type's order. */
  List<Object> values(ContentFile file, PartitionSpec spec) {
    Object[] values = new Object[fieldsById.size()];
    if (spec != null) {
      for (int i = 0; i < spec.fields().size() && i < file.partition().size(); i++) {
        Integer pos = positionById.get(spec.fields().get(i).fieldId());
        if (pos != null) {
          values[pos] = file.partition().get(i);
        }
      }
    }
    return java.util.Arrays.asList(values);
  }

  /** Values from {@link #values} as a Catalyst struct of {@link #sparkType()}. */
  InternalRow row(List<Object> values) {
    Object[] out = new Object[values.size()];
    int pos = 0;
    for (Types.NestedField f : fieldsById.values()) {
      out[pos] = SparkValues.toCatalyst(f.type(), values.get(pos));
      pos++;
    }
    return new GenericInternalRow(out);
  }
}
