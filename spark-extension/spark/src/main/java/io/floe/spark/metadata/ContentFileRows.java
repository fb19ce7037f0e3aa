package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.array;
import static io.floe.spark.metadata.CatalystValues.bounds;
import static io.floe.spark.metadata.CatalystValues.bytes;
import static io.floe.spark.metadata.CatalystValues.counts;
import static io.floe.spark.metadata.CatalystValues.str;

import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The {@code data_file} struct as the file tables ({@code files}, {@code data_files},
 * {@code delete_files}, {@code all_data_files}) and {@code entries.data_file} show it: the spec's
 * content-file fields, with {@code partition} in the table's unified partition type, left out when
 * the table was never partitioned.
 */
final class ContentFileRows {
  private final TableMetadata metadata;
  private final PartitionUnion partitions;
  private final StructType schema;

  ContentFileRows(TableMetadata metadata) {
    this.metadata = metadata;
    this.partitions = PartitionUnion.of(metadata);
    List<StructField> fields = new ArrayList<>();
    fields.add(field("content", DataTypes.IntegerType, true));
    fields.add(field("file_path", DataTypes.StringType, false));
    fields.add(field("file_format", DataTypes.StringType, false));
    fields.add(field("spec_id", DataTypes.IntegerType, true));
    if (!partitions.isEmpty()) {
      fields.add(field("partition", partitions.sparkType(), false));
    }
    fields.add(field("record_count", DataTypes.LongType, false));
    fields.add(field("file_size_in_bytes", DataTypes.LongType, false));
    DataType counts = DataTypes.createMapType(DataTypes.IntegerType, DataTypes.LongType, false);
    DataType bounds = DataTypes.createMapType(DataTypes.IntegerType, DataTypes.BinaryType, false);
    fields.add(field("column_sizes", counts, true));
    fields.add(field("value_counts", counts, true));
    fields.add(field("null_value_counts", counts, true));
    fields.add(field("nan_value_counts", counts, true));
    fields.add(field("lower_bounds", bounds, true));
    fields.add(field("upper_bounds", bounds, true));
    fields.add(field("key_metadata", DataTypes.BinaryType, true));
    fields.add(field("split_offsets", DataTypes.createArrayType(DataTypes.LongType, false), true));
    fields.add(field("equality_ids", DataTypes.createArrayType(DataTypes.IntegerType, false), true));
    fields.add(field("sort_order_id", DataTypes.IntegerType, true));
    fields.add(field("first_row_id", DataTypes.LongType, true));
    fields.add(field("referenced_data_file", DataTypes.StringType, true));
    fields.add(field("content_offset", DataTypes.LongType, true));
    fields.add(field("content_size_in_bytes", DataTypes.LongType, true));
    this.schema = DataTypes.createStructType(fields);
  }

  static StructField field(String name, DataType type, boolean nullable) {
    return DataTypes.createStructField(name, type, nullable);
  }

  StructType schema() {
    return schema;
  }

  PartitionUnion partitions() {
    return partitions;
  }

  /** The file's fields, in {@link #schema()} order. */
  Object[] values(ContentFile file) {
    DataFile data = file instanceof DataFile d ? d : null;
    DeleteFile deletes = file instanceof DeleteFile d ? d : null;
    List<Object> out = new ArrayList<>(schema.size());
    out.add(file.content().id());
    out.add(str(file.path()));
    out.add(str(file.format().name()));
    out.add(file.specId());
    if (!partitions.isEmpty()) {
      out.add(partitions.row(file, metadata.spec(file.specId())));
    }
    out.add(file.recordCount());
    out.add(file.fileSizeInBytes());
    out.add(counts(file.columnSizes()));
    out.add(counts(file.valueCounts()));
    out.add(counts(file.nullValueCounts()));
    out.add(counts(file.nanValueCounts()));
    out.add(bounds(file.lowerBounds()));
    out.add(bounds(file.upperBounds()));
    out.add(bytes(file.keyMetadata()));
    out.add(array(file.splitOffsets()));
    out.add(array(deletes == null ? null : deletes.equalityFieldIds()));
    out.add(file.sortOrderId());
    out.add(data == null ? null : data.firstRowId());
    out.add(str(deletes == null ? null : deletes.referencedDataFile()));
    out.add(deletes == null ? null : deletes.contentOffset());
    out.add(deletes == null ? null : deletes.contentSizeInBytes());
    return out.toArray();
  }

  InternalRow row(ContentFile file) {
    return new GenericInternalRow(values(file));
  }
}
