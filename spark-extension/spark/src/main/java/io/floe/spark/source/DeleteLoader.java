package io.floe.spark.source;

import io.floe.format.deletes.DeletionVector;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.io.InputFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.spark.HadoopFileIO;
import io.floe.spark.source.FloeInputPartition.DeleteFileRef;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Loads the row positions that a data file's delete files remove, once per task before its first
 * batch, into one 64-bit Roaring bitmap that the reader probes per row:
 * <ul>
 *   <li>a deletion vector ({@code PUFFIN}): exactly the bytes [content_offset, content_offset +
 *       content_size_in_bytes) of the Puffin file, whose cardinality must be the record count;
 *   <li>a Parquet position delete file: its rows whose {@code file_path} is this data file's path;
 *   <li>equality deletes are not applied by this version: reading fails, naming the files.
 * </ul>
 * Which delete files apply was decided at planning by the spec's sequence-number rules.
 */
public final class DeleteLoader {
  private DeleteLoader() {}

  /**
   * The positions that {@code deleteFiles} (position delete files and deletion vectors that apply to
   * it, as planned) remove from the data file at {@code dataFilePath}. Used by merge-on-read writers
   * to merge a file's existing deletes into its new deletion vector or delete file.
   */
  public static RoaringPositionBitmap positionsOf(String dataFilePath, List<io.floe.format.manifest.DataFile> deleteFiles,
      Configuration conf) {
    List<DeleteFileRef> refs = deleteFiles.stream()
        .map(d -> new DeleteFileRef(d.path(), d.content().id(), d.format().name(), d.recordCount(), d.contentOffset(),
            d.contentSizeInBytes()))
        .toList();
    return load(dataFilePath, refs, conf, FloeParquetReader.DEFAULT_BATCH_SIZE);
  }

  /** The deleted positions of {@code file}'s data file; empty when its deletes remove nothing. */
  static RoaringPositionBitmap load(FloeInputPartition file, Configuration conf, int batchSize) {
    return load(file.path(), file.deletes(), conf, batchSize);
  }

  private static RoaringPositionBitmap load(String dataFilePath, List<DeleteFileRef> deletes, Configuration conf,
      int batchSize) {
    HadoopFileIO io = new HadoopFileIO(conf);
    RoaringPositionBitmap deleted = null;
    for (DeleteFileRef delete : deletes) {
      RoaringPositionBitmap positions = positions(dataFilePath, delete, io, conf, batchSize);
      if (deleted == null) {
        deleted = positions;
      } else {
        deleted.addAll(positions);
      }
    }
    return deleted != null ? deleted : new RoaringPositionBitmap();
  }

  private static RoaringPositionBitmap positions(String dataFilePath, DeleteFileRef delete,
      HadoopFileIO io, Configuration conf, int batchSize) {
    FileContent content = FileContent.fromId(delete.content());
    if (content == FileContent.EQUALITY_DELETES) {
      throw new UnsupportedOperationException("Cannot read data file " + dataFilePath
          + ": equality delete file " + delete.path() + " applies to it, and this Floe version does not"
          + " apply equality deletes (it applies position deletes and deletion vectors). Rewrite the"
          + " table's equality deletes with the engine that wrote them (e.g. Iceberg's rewrite_data_files"
          + " with delete-file-threshold 1), then read it again");
    }
    if (content != FileContent.POSITION_DELETES) {
      throw new IllegalStateException("Invalid delete file " + delete.path() + " for " + dataFilePath
          + ": content " + content);
    }
    FileFormat format = FileFormat.fromString(delete.format());
    switch (format) {
      case PUFFIN:
        return deletionVector(dataFilePath, delete, io);
      case PARQUET:
        RoaringPositionBitmap positions = new RoaringPositionBitmap();
        PositionDeleteFileReader.read(delete.path(), dataFilePath, conf, batchSize, positions);
        return positions;
      default:
        throw new UnsupportedOperationException("Cannot read data file " + dataFilePath
            + ": its position delete file " + delete.path() + " is " + format
            + ", and Floe reads position deletes from Parquet files and deletion vectors");
    }
  }

  private static RoaringPositionBitmap deletionVector(String dataFilePath, DeleteFileRef dv, HadoopFileIO io) {
    if (dv.contentOffset() == null || dv.contentSizeInBytes() == null) {
      throw new io.floe.format.FloeFormatException("Invalid deletion vector " + dv.path() + " for data file "
          + dataFilePath + ": the manifest entry has no content_offset or content_size_in_bytes");
    }
    InputFile puffin = io.newInputFile(dv.path());
    return DeletionVector.read(puffin, dv.contentOffset(), dv.contentSizeInBytes(), dv.recordCount()).positions();
  }
}
