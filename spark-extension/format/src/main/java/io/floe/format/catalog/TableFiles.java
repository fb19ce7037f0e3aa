package io.floe.format.catalog;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Set;

/** Every file a table's metadata references, across all snapshots: for purge and for checks. */
public final class TableFiles {
  private TableFiles() {}

  public static Set<String> referencedFiles(FileIO io, TableMetadata metadata) {
    Set<String> files = new LinkedHashSet<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
        if (!files.add(manifest.path())) {
          continue;
        }
        for (ManifestEntry<?> e : ManifestReader.read(io.newInputFile(manifest.path()), manifest, metadata.specsById())) {
          files.add(e.file().path());
        }
      }
    }
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      files.add(stats.path());
    }
    return files;
  }

  /**
   * For PURGE of a table whose location is outside its warehouse folder {@code root}: deletes the
   * referenced files below the table's location. Files below {@code root} go with the folder, and
   * files anywhere else (registered from other places) are never deleted: destructive operations
   * stay inside the table's own roots.
   */
  static void deleteAllOutside(FileIO io, TableMetadata metadata, String root) {
    String prefix = normalize(root.endsWith("/") ? root : root + "/");
    String location = normalize(metadata.location().endsWith("/") ? metadata.location() : metadata.location() + "/");
    for (String file : referencedFiles(io, metadata)) {
      String path = normalize(file);
      if (!path.startsWith(prefix) && path.startsWith(location) && !path.contains("/../")) {
        try {
          io.deleteFile(file);
        } catch (IOException | RuntimeException ignored) {
          // purge is best effort for files outside the table directory
        }
      }
    }
  }

  /** {@code file:///x}, {@code file:/x} and {@code /x} name the same local file. */
  public static String normalize(String location) {
    if (location.startsWith("file:///")) {
      return location.substring("file://".length());
    }
    if (location.startsWith("file:/")) {
      return location.substring("file:".length());
    }
    return location;
  }
}
