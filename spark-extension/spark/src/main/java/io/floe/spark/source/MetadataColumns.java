package io.floe.spark.source;

import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.table.TableView;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.util.SparkValues;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The metadata columns a Floe table offers ({@code _file}, {@code _pos}, {@code _spec_id},
 * {@code _partition}), the field ids that mark them in a read schema, and the {@code _partition}
 * value of a file. Scans read them, row-level writes cluster by them.
 */
public final class MetadataColumns {
  public static final int FILE_FIELD_ID = Integer.MAX_VALUE - 1;
  public static final int POS_FIELD_ID = Integer.MAX_VALUE - 2;
  public static final int SPEC_ID_FIELD_ID = Integer.MAX_VALUE - 4;
  public static final int PARTITION_FIELD_ID = Integer.MAX_VALUE - 5;
  public static final String SPEC_ID_COLUMN = "_spec_id";
  public static final String PARTITION_COLUMN = "_partition";

  private MetadataColumns() {}

  private record FloeMetadataColumn(String name, DataType dataType, int fieldId, boolean nullable, String comment)
      implements MetadataColumn {
    @Override
    public boolean isNullable() {
      return nullable;
    }

    @Override
    public String metadataInJSON() {
      return "{\"" + FloeParquetReader.METADATA_COLUMN_KEY + "\":true,\"floe.field-id\":" + fieldId + "}";
    }
  }

  /** The metadata columns of {@code table}; {@code _partition} has the union of every spec's fields. */
  public static MetadataColumn[] of(TableView table) {
    return new MetadataColumn[] {
        new FloeMetadataColumn(FloeParquetReader.FILE_COLUMN, DataTypes.StringType, FILE_FIELD_ID, false,
            "Path of the data file the row is in"),
        new FloeMetadataColumn(FloeParquetReader.POS_COLUMN, DataTypes.LongType, POS_FIELD_ID, false,
            "Position of the row in its data file, from 0"),
        new FloeMetadataColumn(SPEC_ID_COLUMN, DataTypes.IntegerType, SPEC_ID_FIELD_ID, false,
            "Id of the partition spec the row's data file was written with"),
        new FloeMetadataColumn(PARTITION_COLUMN, SparkSchemas.convert(table.partitionUnionType()), PARTITION_FIELD_ID,
            true, "Partition tuple of the row's data file (fields of every spec; null where a spec lacks one)")};
  }

  /** A file's partition tuple as a Catalyst row of {@link TableView#partitionUnionType()}. */
  public static InternalRow partitionRow(Types.StructType unionType, PartitionSpec spec, PartitionData data) {
    List<Types.NestedField> union = unionType.fields();
    List<Types.NestedField> own = spec.partitionType().fields();
    Object[] values = new Object[union.size()];
    for (int i = 0; i < union.size(); i++) {
      for (int j = 0; j < own.size(); j++) {
        if (own.get(j).fieldId() == union.get(i).fieldId()) {
          values[i] = SparkValues.toCatalyst(union.get(i).type(), data.get(j));
        }
      }
    }
    return new GenericInternalRow(values);
  }
}
