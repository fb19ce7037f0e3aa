package io.floe.spark.write;

import io.floe.format.deletes.PositionDeleteRewriter;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.partition.PartitionSpec;
import io.floe.spark.source.DeleteLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;

/**
 * Floe's {@link PositionDeleteRewriter}: reads a Parquet position delete file whole (every
 * {@code file_path}, whichever data files it covers) with Spark's vectorized Parquet reader, maps
 * each path, and writes the rows again, sorted by path then position, with
 * {@link PositionDeleteFileWriter}'s schema, table Parquet properties and full metrics. Used by
 * ALTER TABLE RENAME, on the driver.
 */
public final class PositionDeleteFileRewriter implements PositionDeleteRewriter {
  private final Configuration conf;

  public PositionDeleteFileRewriter(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public DeleteFile rewrite(DeleteFile source, PartitionSpec spec, String target, UnaryOperator<String> paths,
      Map<String, String> tableProperties) {
    TreeMap<String, RoaringPositionBitmap> moved = new TreeMap<>();
    DeleteLoader.positionsByDataFile(source.path(), conf).forEach((path, positions) ->
        moved.computeIfAbsent(paths.apply(path), p -> new RoaringPositionBitmap()).addAll(positions));
    FloeParquetWriter writer;
    try {
      writer = PositionDeleteFileWriter.write(target, moved, conf, tableProperties);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write position delete file " + target + " (copy of " + source.path()
          + ")", e);
    }
    return DeleteFile.builder(spec).copy(source)
        .withPath(target)
        .withMetrics(writer.metrics())
        .withRecordCount(writer.metrics().recordCount())
        .withFileSizeInBytes(writer.length())
        .withSplitOffsets(writer.splitOffsets())
        .withReferencedDataFile(paths.apply(source.referencedDataFile()))
        .build();
  }
}
