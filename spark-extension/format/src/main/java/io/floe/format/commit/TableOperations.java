package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.TableMetadata;

/** Loads a table's current metadata and publishes new versions: the only atomic step of the format. */
public interface TableOperations {
  /** The metadata last loaded (null when the table does not exist). */
  TableMetadata current();

  /** Loads the newest published metadata (null when the table does not exist). */
  TableMetadata refresh();

  /**
   * Publishes {@code updated} as the version after {@code base}. Throws {@link CommitFailedException}
   * if {@code base} is not the newest version (nothing published), {@link CommitStateUnknownException}
   * if the outcome cannot be determined.
   */
  void commit(TableMetadata base, TableMetadata updated);

  FileIO io();

  /** The table's name for messages, e.g. {@code db.events}. */
  String tableName();

  /** The directory holding {@code metadata/}: where version files live. */
  String metadataRoot();

  default String metadataFileLocation(String fileName) {
    return metadataRoot() + "/metadata/" + fileName;
  }
}
