package io.floe.spark.source;

import io.floe.format.FloeFormatException;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.spark.util.SparkSchemas;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads a v2 position delete file (Parquet, columns {@code file_path} id 2147483546 and
 * {@code pos} id 2147483545, matched by id, or by name in files without ids) with Spark's
 * vectorized reader, and keeps the positions whose {@code file_path} is exactly a data file's
 * location: paths are compared as strings, never normalized (docs/format.md, 'Paths are compared as
 * strings'). One read serves every data file of a task that the delete file covers.
 */
final class PositionDeleteFileReader {
  static final int FILE_PATH_ID = 2147483546;
  static final int POS_ID = 2147483545;
  private static final StructType SCHEMA = new StructType(new StructField[] {
      new StructField("file_path", DataTypes.StringType, true, fieldId(FILE_PATH_ID)),
      new StructField("pos", DataTypes.LongType, true, fieldId(POS_ID))});

  private PositionDeleteFileReader() {}

  private static Metadata fieldId(int id) {
    return new MetadataBuilder().putLong(SparkSchemas.FIELD_ID_KEY, id).build();
  }

  /**
   * Adds to {@code deleted} the positions that {@code deleteFile} deletes from {@code dataFile};
   * returns how many rows of the delete file referenced it.
   */
  static long read(String deleteFile, String dataFile, Configuration conf, int batchSize,
      RoaringPositionBitmap deleted) {
    return read(deleteFile, -1, Map.of(UTF8String.fromString(dataFile), deleted), conf, batchSize);
  }

  /**
   * Reads {@code deleteFile} once and adds the positions of each data file in {@code targets}
   * (keyed by its exact location) to its bitmap; returns how many rows referenced one of them.
   * {@code fileLength}: the delete file's length when known (its manifest entry), else -1.
   */
  static long read(String deleteFile, long fileLength, Map<UTF8String, RoaringPositionBitmap> targets,
      Configuration conf, int batchSize) {
    return read(deleteFile, fileLength, targets::get, conf, batchSize, " (deletes of "
        + (targets.size() == 1 ? targets.keySet().iterator().next() : targets.size() + " data files") + ")");
  }

  /** Every row of {@code deleteFile}: the positions it deletes, by data file path. */
  static Map<String, RoaringPositionBitmap> readAll(String deleteFile, Configuration conf, int batchSize) {
    Map<UTF8String, RoaringPositionBitmap> all = new HashMap<>();
    read(deleteFile, -1, path -> all.computeIfAbsent(path, p -> new RoaringPositionBitmap()), conf, batchSize, "");
    Map<String, RoaringPositionBitmap> out = new HashMap<>();
    all.forEach((path, positions) -> out.put(path.toString(), positions));
    return out;
  }

  /**
   * Reads {@code deleteFile} once, adding each row's position to the bitmap {@code target} gives
   * for its {@code file_path} (rows whose bitmap is null are skipped); returns the rows added.
   * {@code context} follows the file's name in an I/O error.
   */
  private static long read(String deleteFile, long fileLength, Function<UTF8String, RoaringPositionBitmap> target,
      Configuration conf, int batchSize, String context) {
    long matched = 0;
    long row = 0;
    UTF8String lastPath = null;
    RoaringPositionBitmap lastTarget = null;
    try (FloeParquetReader reader = FloeParquetReader.read(deleteFile).fileLengthIfKnown(fileLength).project(SCHEMA)
        .conf(conf).batchSize(batchSize).build()) {
      while (reader.next()) {
        ColumnarBatch batch = reader.get();
        ColumnVector paths = batch.column(0);
        ColumnVector positions = batch.column(1);
        int rows = batch.numRows();
        for (int i = 0; i < rows; i++, row++) {
          if (paths.isNullAt(i) || positions.isNullAt(i)) {
            throw invalid(deleteFile, row, "a file_path (field id " + FILE_PATH_ID + ") and a pos (field id "
                + POS_ID + ")", "null " + (paths.isNullAt(i) ? "file_path" : "pos"));
          }
          UTF8String path = paths.getUTF8String(i);
          if (lastPath == null || !lastPath.equals(path)) { // rows are sorted by file_path: look up once per run
            lastPath = path.copy();
            lastTarget = target.apply(lastPath);
          }
          if (lastTarget != null) {
            long pos = positions.getLong(i);
            if (pos < 0 || pos > RoaringPositionBitmap.MAX_POSITION) {
              throw invalid(deleteFile, row, "a position from 0 to " + RoaringPositionBitmap.MAX_POSITION,
                  String.valueOf(pos));
            }
            lastTarget.add(pos);
            matched++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read position delete file " + deleteFile + context, e);
    }
    return matched;
  }

  private static FloeFormatException invalid(String file, long row, String expected, String found) {
    return new FloeFormatException("Invalid position delete file " + file + ": at row " + row + ", expected "
        + expected + ", found " + found);
  }
}
