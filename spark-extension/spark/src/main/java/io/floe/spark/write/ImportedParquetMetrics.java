package io.floe.spark.write;

import io.floe.format.manifest.Metrics;
import io.floe.format.manifest.MetricsModes;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * Column metrics of an existing Parquet file that is added to a table without being rewritten
 * (CALL add_files): the same footer metrics as written files get, with columns matched by name
 * (the file has no field ids), and float and double NaN counts and bounds left out (unknown).
 */
public final class ImportedParquetMetrics {
  private ImportedParquetMetrics() {}

  /**
   * The metrics of the file whose footer is {@code footer} for table columns {@code struct}; throws
   * IllegalArgumentException naming the first column that does not match (missing, extra, or of
   * another physical type).
   */
  public static Metrics of(ParquetMetadata footer, Types.StructType struct, MetricsModes modes) {
    MessageType file = footer.getFileMetaData().getSchema();
    List<Types.NestedField> ordered = new ArrayList<>();
    for (org.apache.parquet.schema.Type column : file.getFields()) {
      Types.NestedField field = byName(struct, column.getName());
      if (field == null) {
        throw new IllegalArgumentException("it has column " + column.getName() + ", which the table does not have");
      }
      if (column.getId() != null && column.getId().intValue() != field.fieldId()) {
        // readers match a file with ids by id: another id would read another column's values, or nulls
        throw new IllegalArgumentException("its column " + column.getName() + " has field id " + column.getId()
            + ", but the table's column " + field.name() + " has id " + field.fieldId()
            + " (the file belongs to another table; rewrite it with INSERT ... SELECT instead)");
      }
      ordered.add(field);
    }
    for (Types.NestedField field : struct.fields()) {
      if (!ordered.contains(field)) {
        throw new IllegalArgumentException("it has no column " + field.name());
      }
    }
    ParquetWriteSchema schema = ParquetWriteSchema.build(file, Types.StructType.of(ordered));
    return ParquetFooterMetrics.collect(footer.getBlocks(), schema, modes, false);
  }

  /** The file's {@code split_offsets}: its row groups' start offsets, ascending (as written files get). */
  public static List<Long> splitOffsets(ParquetMetadata footer) {
    return ParquetFooterMetrics.splitOffsets(footer.getBlocks());
  }

  private static Types.NestedField byName(Types.StructType struct, String name) {
    for (Types.NestedField field : struct.fields()) {
      if (field.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return field;
      }
    }
    return null;
  }
}
