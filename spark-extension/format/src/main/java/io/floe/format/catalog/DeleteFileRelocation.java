package io.floe.format.catalog;

import io.floe.format.FloeFormatException;
import io.floe.format.deletes.PositionDeleteRewriter;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.PuffinCopy;
import io.floe.format.puffin.StandardPuffinProperties;
import io.floe.format.types.Conversions;
import io.floe.format.types.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Moves the delete files of a table whose folder moves ({@link RootMove}), for
 * {@link TableRelocation}: the manifest entry of every content file gets the moved path, and the
 * files whose content names moved data files are rewritten under new names beside the originals
 * (never overwriting them), each once however many snapshots list it:
 * <ul>
 *   <li>a Parquet position delete file, whose {@code file_path} column names data files: by the
 *       engine's {@link PositionDeleteRewriter}; the entry takes the new file's size, metrics
 *       (so the bounds of {@code file_path}, field id 2147483546) and split offsets;</li>
 *   <li>a Puffin file of deletion vectors, whose blobs name their data file in the
 *       {@code referenced-data-file} property: by {@link PuffinCopy}; the entry takes the new
 *       file's size and its blob's new {@code content_offset} and {@code content_size_in_bytes}.</li>
 * </ul>
 * Every entry's {@code referenced_data_file} moves. A file that may name no moved path (its
 * {@code referenced_data_file}, or its {@code file_path} bounds, lie elsewhere), an equality delete
 * file, and a delete file that only an entry of status DELETED lists and that no longer exists
 * keep their content. New files are written where the originals are now, and named as they will
 * be after the move; {@link #written()} lists them for clean-up.
 */
final class DeleteFileRelocation {
  private static final Pattern PREVIOUS_SUFFIX =
      Pattern.compile("-r[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$");

  private final FileIO io;
  private final RootMove move;
  private final String table;
  private final String rewriteId;
  private final PositionDeleteRewriter rewriter;
  private final Map<String, String> tableProperties;
  private final Map<String, DeleteFile> parquet = new HashMap<>();
  private final Map<String, PuffinCopy.Result> puffins = new HashMap<>();
  private final List<String> written = new ArrayList<>();

  /** {@code rewriter} null: no engine can rewrite Parquet, and a rename that needs it fails. */
  DeleteFileRelocation(FileIO io, RootMove move, String table, String rewriteId, PositionDeleteRewriter rewriter,
      Map<String, String> tableProperties) {
    this.io = io;
    this.move = move;
    this.table = table;
    this.rewriteId = rewriteId;
    this.rewriter = rewriter;
    this.tableProperties = tableProperties;
  }

  /** Every file written so far (where it is before the move), finished or not. */
  List<String> written() {
    return written;
  }

  /** The entry of {@code file} after the move; {@code live}: listed with status ADDED or EXISTING. */
  DeleteFile relocate(DeleteFile file, PartitionSpec spec, boolean live) {
    DeleteFile.Builder moved = DeleteFile.builder(spec).copy(file)
        .withPath(move.apply(file.path()))
        .withReferencedDataFile(move.apply(file.referencedDataFile()));
    if (file.content() != FileContent.POSITION_DELETES) {
      return moved.build();
    }
    if (!namesMovedPaths(file) || (!live && !cached(file) && !exists(file.path()))) {
      return moved.withMetrics(movedBounds(file)).build();
    }
    if (file.format() == FileFormat.PUFFIN) {
      return relocateVector(file, moved);
    }
    if (file.format() != FileFormat.PARQUET) {
      throw CatalogErrors.cannotRewriteDeleteFile(table, file.path(), "it is " + file.format()
          + ", while Floe rewrites position delete files only in Parquet");
    }
    DeleteFile rewritten = parquet.computeIfAbsent(file.path(), path -> rewriteParquet(file, spec));
    return moved.withPath(move.apply(rewritten.path()))
        .withFileSizeInBytes(rewritten.fileSizeInBytes())
        .withMetrics(metrics(rewritten, rewritten.lowerBounds(), rewritten.upperBounds()))
        .withRecordCount(rewritten.recordCount())
        .withSplitOffsets(rewritten.splitOffsets())
        .build();
  }

  private boolean namesMovedPaths(DeleteFile file) {
    if (file.referencedDataFile() != null) {
      return move.moves(file.referencedDataFile());
    }
    return ContentFiles.isDeletionVector(file)
        || move.mayHoldMoved(bound(file.lowerBounds()), bound(file.upperBounds()));
  }

  private boolean cached(DeleteFile file) {
    return parquet.containsKey(file.path()) || puffins.containsKey(file.path());
  }

  private boolean exists(String path) {
    try {
      return io.exists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check delete file " + path + " of table " + table, e);
    }
  }

  private DeleteFile relocateVector(DeleteFile file, DeleteFile.Builder moved) {
    PuffinCopy.Result copy = puffins.computeIfAbsent(file.path(), this::copyPuffin);
    BlobMetadata blob = file.contentOffset() == null ? null : copy.blobAt(file.contentOffset());
    if (blob == null || file.contentSizeInBytes() == null || blob.length() != file.contentSizeInBytes()) {
      throw new FloeFormatException("Invalid deletion vector in " + file.path() + " for data file "
          + file.referencedDataFile() + " of table " + table + ": its manifest entry says offset "
          + file.contentOffset() + ", length " + file.contentSizeInBytes() + ", but the Puffin file has "
          + (blob == null ? "no blob at that offset" : "a blob of length " + blob.length() + " there"));
    }
    return moved.withPath(move.apply(copy.location()))
        .withFileSizeInBytes(copy.fileSize())
        .withContentOffset(blob.offset())
        .withContentSizeInBytes(blob.length())
        .withMetrics(movedBounds(file))
        .build();
  }

  private PuffinCopy.Result copyPuffin(String path) {
    String target = newName(path);
    written.add(target);
    return PuffinCopy.copy(io.newInputFile(path), io.newOutputFile(target), blob -> {
      Map<String, String> properties = new LinkedHashMap<>(blob.properties());
      properties.computeIfPresent(StandardPuffinProperties.REFERENCED_DATA_FILE, (k, v) -> move.apply(v));
      return properties;
    });
  }

  private DeleteFile rewriteParquet(DeleteFile file, PartitionSpec spec) {
    if (rewriter == null) {
      throw CatalogErrors.cannotRewriteDeleteFile(table, file.path(),
          "no Parquet writer was given for it: rename the table through Floe's Spark catalog");
    }
    String target = newName(file.path());
    written.add(target);
    DeleteFile rewritten = rewriter.rewrite(file, spec, target, move::apply, tableProperties);
    if (!target.equals(rewritten.path())) {
      throw new IllegalStateException("Position delete rewriter wrote " + rewritten.path() + ", not " + target);
    }
    return rewritten;
  }

  /**
   * A new name for the rewrite of {@code path}: its name (without an earlier rename's suffix) plus
   * this rename's id, beside it when it lies in the moving folder, else in the folder's {@code data/}
   * (a rewritten file must move with the table, never stay in a folder some other table may own).
   */
  private String newName(String path) {
    int slash = path.lastIndexOf('/');
    String name = path.substring(slash + 1);
    int dot = name.lastIndexOf('.');
    String stem = dot > 0 ? name.substring(0, dot) : name;
    String extension = dot > 0 ? name.substring(dot) : "";
    String folder = move.moves(path) ? path.substring(0, slash + 1) : move.oldRoot() + "/data/";
    return folder + PREVIOUS_SUFFIX.matcher(stem).replaceFirst("") + "-r" + rewriteId + extension;
  }

  private Metrics movedBounds(DeleteFile file) {
    return metrics(file, movedBound(file.lowerBounds()), movedBound(file.upperBounds()));
  }

  private Map<Integer, ByteBuffer> movedBound(Map<Integer, ByteBuffer> bounds) {
    String value = bound(bounds);
    if (value == null || !move.moves(value)) {
      return bounds;
    }
    Map<Integer, ByteBuffer> out = new LinkedHashMap<>(bounds);
    out.put(ContentFiles.DELETE_FILE_PATH_ID, Conversions.toByteBuffer(Types.StringType.get(), move.apply(value)));
    return out;
  }

  private static String bound(Map<Integer, ByteBuffer> bounds) {
    ByteBuffer value = bounds.get(ContentFiles.DELETE_FILE_PATH_ID);
    return value == null ? null : (String) Conversions.fromByteBuffer(Types.StringType.get(), value);
  }

  private static Metrics metrics(DeleteFile file, Map<Integer, ByteBuffer> lower, Map<Integer, ByteBuffer> upper) {
    return new Metrics(file.recordCount(), file.columnSizes(), file.valueCounts(), file.nullValueCounts(),
        file.nanValueCounts(), lower, upper);
  }
}
