package io.floe.format.index;

import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.Locations;
import io.floe.format.metadata.MetadataLogEntry;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The index files that expire_snapshots may delete: files under the table's hidden index folder
 * that no retained metadata (the current metadata file and the previous ones its metadata log
 * lists and that still exist) names through its index list, and that are older than a cut-off, so
 * that the segments of a build still in flight are never taken. When an index list that retained
 * metadata names cannot be read, nothing is deleted: what it references is unknown.
 */
public final class IndexFileCleanup {
  private IndexFileCleanup() {}

  /** The files to delete, for a table whose metadata folder is {@code metadataFolder}. */
  public static List<String> unreferenced(FileIO io, String table, String metadataFolder, TableMetadata current,
      long olderThanMillis) {
    String folder = IndexLocations.folder(metadataFolder);
    try {
      if (!io.exists(folder)) {
        return List.of();
      }
      Set<String> keep = new HashSet<>();
      if (!addReferenced(io, table, current.properties(), keep)) {
        return List.of();
      }
      for (MetadataLogEntry entry : current.previousFiles()) {
        if (!io.exists(entry.file())) {
          continue; // no longer retained: nothing can load it
        }
        if (!addReferenced(io, table, TableMetadataParser.read(io, entry.file()).properties(), keep)) {
          return List.of();
        }
      }
      List<String> delete = new ArrayList<>();
      if (keep.contains(null)) {
        return List.of(); // a referenced location that cannot be compared: delete nothing
      }
      for (FileInfo file : io.listRecursively(folder)) {
        String canonical = Locations.canonical(file.location());
        if (canonical != null && file.modifiedMillis() < olderThanMillis && !keep.contains(canonical)) {
          delete.add(file.location());
        }
      }
      return delete;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the index files of table " + table + " in " + folder, e);
    }
  }

  /** Adds the index list named by {@code properties} and its segments; false when the list cannot be read. */
  private static boolean addReferenced(FileIO io, String table, Map<String, String> properties, Set<String> keep) {
    String location = IndexListFiles.currentLocation(properties);
    if (location == null) {
      return true;
    }
    keep.add(Locations.canonical(location));
    try {
      IndexListFiles.read(io, table, properties).segmentPaths().forEach(p -> keep.add(Locations.canonical(p)));
      return true;
    } catch (IndexException e) {
      return false;
    }
  }
}
