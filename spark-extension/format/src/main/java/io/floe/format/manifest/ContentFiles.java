package io.floe.format.manifest;

import io.floe.format.types.Conversions;
import io.floe.format.types.Types;
import java.nio.ByteBuffer;

/** Facts about content files that several parts of the format need. */
public final class ContentFiles {
  /** Field id of a position delete file's {@code file_path} column. */
  public static final int DELETE_FILE_PATH_ID = 2147483546;

  private ContentFiles() {
  }

  /**
   * The one data file a position delete file or deletion vector applies to: its
   * {@code referenced_data_file}, or the path its {@code file_path} lower and upper bounds both
   * equal; null when it may cover several data files of its partition.
   */
  public static String referencedDataFile(DeleteFile deleteFile) {
    if (deleteFile.referencedDataFile() != null) {
      return deleteFile.referencedDataFile();
    }
    if (deleteFile.content() != FileContent.POSITION_DELETES) {
      return null;
    }
    ByteBuffer lower = deleteFile.lowerBounds().get(DELETE_FILE_PATH_ID);
    ByteBuffer upper = deleteFile.upperBounds().get(DELETE_FILE_PATH_ID);
    if (lower != null && lower.equals(upper)) {
      return (String) Conversions.fromByteBuffer(Types.StringType.get(), lower);
    }
    return null;
  }

  /** Whether the file is a deletion vector (a blob in a Puffin file). */
  public static boolean isDeletionVector(ContentFile file) {
    return file.content() == FileContent.POSITION_DELETES && file.format() == FileFormat.PUFFIN;
  }

  /** Identity of a delete file within a snapshot: its path, plus the blob offset for a deletion vector. */
  public static String deleteFileKey(DeleteFile file) {
    return file.contentOffset() == null ? file.path() : file.path() + "#" + file.contentOffset();
  }

  /** Identity of a content file within a snapshot: a data file's path, or a delete file's {@link #deleteFileKey}. */
  public static String fileKey(ContentFile file) {
    return file instanceof DeleteFile deleteFile ? deleteFileKey(deleteFile) : file.path();
  }
}
