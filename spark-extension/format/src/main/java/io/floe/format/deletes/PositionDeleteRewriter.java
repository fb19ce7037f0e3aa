package io.floe.format.deletes;

import io.floe.format.manifest.DeleteFile;
import io.floe.format.partition.PartitionSpec;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Rewrites a Parquet position delete file with other data file paths: a position delete file
 * names the data files it deletes from in its {@code file_path} column (field id 2147483546), so
 * when those files move (ALTER TABLE RENAME) its content must change too. The format layer reads
 * and writes no Parquet; the engine implements this with its Parquet reader and writer.
 */
@FunctionalInterface
public interface PositionDeleteRewriter {
  /**
   * Writes a new Parquet position delete file at {@code target} (it must not exist) holding the
   * rows of {@code source}, each {@code file_path} replaced by {@code paths.apply(file_path)},
   * sorted by {@code file_path} then {@code pos}; the optional {@code row} column is not copied.
   * {@code tableProperties} give the Parquet settings.
   *
   * @return {@code source}'s manifest entry with the new file's path, size, record count, split
   *     offsets and metrics (full bounds on {@code file_path} and {@code pos}), and its
   *     {@code referenced_data_file} mapped by {@code paths}
   */
  DeleteFile rewrite(DeleteFile source, PartitionSpec spec, String target, UnaryOperator<String> paths,
      Map<String, String> tableProperties);
}
