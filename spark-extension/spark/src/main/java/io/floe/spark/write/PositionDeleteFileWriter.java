package io.floe.spark.write;

import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.MetricsModes;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes a format-v2 position delete file for one data file: Parquet rows ({@code file_path},
 * {@code pos}) sorted by position, all with the data file's path, and describes it as the manifest
 * entry the spec asks for (docs/format.md, 'Position delete files'): content POSITION_DELETES, the
 * data file's spec and partition, {@code referenced_data_file} set, and full (untruncated) bounds on
 * both columns, so that readers which find the data file by the {@code file_path} bounds see the
 * exact path.
 */
final class PositionDeleteFileWriter {
  static final int POS_ID = 2147483545;
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(ContentFiles.DELETE_FILE_PATH_ID, "file_path", Types.StringType.get()),
      Types.NestedField.required(POS_ID, "pos", Types.LongType.get()));
  private static final StructType ROW_TYPE = new StructType()
      .add("file_path", DataTypes.StringType, false)
      .add("pos", DataTypes.LongType, false);

  private PositionDeleteFileWriter() {}

  /**
   * Writes {@code positions} (not empty) of {@code dataFile} to a new Parquet file at
   * {@code location}, with the table's Parquet properties and full metrics.
   */
  static DeleteFile write(String location, DataFile dataFile, PartitionSpec spec, RoaringPositionBitmap positions,
      Configuration conf, Map<String, String> tableProperties) {
    if (positions.isEmpty()) {
      throw new IllegalArgumentException("Cannot write an empty position delete file for " + dataFile.path());
    }
    FloeParquetWriter writer;
    try {
      writer = write(location, new TreeMap<>(Map.of(dataFile.path(), positions)), conf, tableProperties);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write position delete file " + location + " for " + dataFile.path(), e);
    }
    return DeleteFile.builder(spec)
        .withContent(FileContent.POSITION_DELETES)
        .withFormat(FileFormat.PARQUET)
        .withPath(location)
        .withPartition(dataFile.partition())
        .withMetrics(writer.metrics())
        .withRecordCount(writer.metrics().recordCount())
        .withFileSizeInBytes(writer.length())
        .withSplitOffsets(writer.splitOffsets())
        .withReferencedDataFile(dataFile.path())
        .build();
  }

  /**
   * Writes the positions of every data file in {@code positionsByPath} (in path order, then
   * position order) to a new Parquet file at {@code location}, with the table's Parquet
   * properties and full metrics; returns the closed writer, which has the file's metrics.
   */
  static FloeParquetWriter write(String location, SortedMap<String, RoaringPositionBitmap> positionsByPath,
      Configuration conf, Map<String, String> tableProperties) throws IOException {
    Map<String, String> properties = new HashMap<>(tableProperties);
    properties.put(MetricsModes.DEFAULT_MODE, "full");
    properties.put(MetricsModes.COLUMN_MODE_PREFIX + "file_path", "full");
    properties.put(MetricsModes.COLUMN_MODE_PREFIX + "pos", "full");
    FloeParquetWriter writer = new FloeParquetWriter(SCHEMA, ROW_TYPE, location, conf, properties);
    try (FloeParquetWriter out = writer) {
      IOException[] failure = new IOException[1];
      for (Map.Entry<String, RoaringPositionBitmap> file : positionsByPath.entrySet()) {
        GenericInternalRow row = new GenericInternalRow(new Object[] {UTF8String.fromString(file.getKey()), 0L});
        file.getValue().forEach(pos -> {
          if (failure[0] == null) {
            row.setLong(1, pos);
            try {
              out.write(row);
            } catch (IOException e) {
              failure[0] = e;
            }
          }
        });
        if (failure[0] != null) {
          throw failure[0];
        }
      }
    }
    return writer;
  }
}
