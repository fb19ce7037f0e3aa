package io.floe.format.index;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;

/**
 * An index cannot be used: a segment file is missing, corrupt or of an unknown layout, or a
 * definition does not fit the table. Names the table, the index and (when there is one) the file;
 * planning catches it and scans without the index. Built by {@link IndexErrors}.
 */
public class IndexException extends FloeException {
  private final String table;
  private final String indexName;
  private final String location;

  IndexException(String table, String indexName, String location, String message, Throwable cause) {
    this(ErrorClass.FLOE_FILE_INVALID, table, indexName, location, message, cause);
  }

  IndexException(ErrorClass errorClass, String table, String indexName, String location, String message,
      Throwable cause) {
    super(errorClass, message, cause);
    this.table = table;
    this.indexName = indexName;
    this.location = location;
  }

  public String table() {
    return table;
  }

  public String indexName() {
    return indexName;
  }

  /** The segment or index list file at fault; null when no file is involved. */
  public String location() {
    return location;
  }
}
