package io.floe.format.index;

import java.util.UUID;

/**
 * Where index files go: under {@code <metadata folder>/_floe_indexes/}, a hidden folder (its name
 * starts with {@code _}) that Iceberg's and Floe's {@code remove_orphan_files} never list for
 * deletion and that Iceberg readers never open. Index lists are
 * {@code _floe_indexes/index-list-<uuid>.json}, segments {@code _floe_indexes/<index name>/<uuid>.puffin}.
 */
public final class IndexLocations {
  private IndexLocations() {}

  /** The hidden folder's name; hidden because it starts with {@code _}. */
  public static final String FOLDER = "_floe_indexes";

  private static final int MAX_FOLDER_NAME = 64;

  /** The hidden index folder of a table whose metadata folder is {@code metadataFolder}. */
  public static String folder(String metadataFolder) {
    return stripSlash(metadataFolder) + "/" + FOLDER;
  }

  /** A new index list file. */
  public static String newIndexList(String metadataFolder) {
    return folder(metadataFolder) + "/index-list-" + UUID.randomUUID() + ".json";
  }

  /**
   * A new segment file of index {@code indexName}; characters other than letters, digits, {@code _}
   * and {@code -} become {@code _} in the folder name, which keeps at most 64 of them (the index
   * list, not the folder, names the index, so names that map to one folder share it harmlessly).
   */
  public static String newSegment(String metadataFolder, String indexName) {
    String folderName = indexName.replaceAll("[^A-Za-z0-9_-]", "_");
    folderName = folderName.length() > MAX_FOLDER_NAME ? folderName.substring(0, MAX_FOLDER_NAME) : folderName;
    return folder(metadataFolder) + "/" + (folderName.isEmpty() ? "_" : folderName) + "/" + UUID.randomUUID()
        + ".puffin";
  }

  private static String stripSlash(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }
}
