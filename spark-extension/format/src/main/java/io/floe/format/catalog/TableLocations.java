package io.floe.format.catalog;

import io.floe.format.io.FileIO;
import io.floe.format.io.Locations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One table per location. Orphan removal, snapshot expiry and {@code DROP TABLE ... PURGE} delete
 * what a table's location holds and its metadata does not reach, so a location shared with another
 * table, a namespace or unrelated files loses them. {@link #checkNewTable} refuses such a location
 * when a table is created or replaced; {@link #checkSoleOwner} and {@link #checkNoForeignMetadata}
 * make the destructive operations refuse to run where another table's metadata is found.
 */
public final class TableLocations {
  private static final String METADATA_SUFFIX = ".metadata.json";
  private static final Pattern VERSION_FILE = Pattern.compile("v(\\d+)\\.metadata\\.json");
  /** Folders visited at most when looking for a first file below a new location. */
  private static final int MAX_FOLDERS_VISITED = 10_000;

  private TableLocations() {}

  /**
   * Checks the location of a table about to be created ({@code replacedLocation} null) or replaced
   * (the replaced table's current location): throws {@link CatalogErrors#locationInUse} when it
   * contains the warehouse, lies inside the warehouse other than at {@code defaultLocation}, lies
   * inside another table's location, or already holds a table's metadata or any file. A
   * replacement may keep the replaced table's own location or take its default one.
   */
  public static void checkNewTable(FileIO io, String warehouse, String defaultLocation, String location, String table,
      String replacedLocation) {
    String canonical = Locations.canonical(location);
    if (canonical == null) {
      throw CatalogErrors.locationInUse(table, location, "it is not a usable location (unparseable, or a '.' or "
          + "'..' segment)");
    }
    if (replacedLocation != null && (same(location, replacedLocation) || same(location, defaultLocation))) {
      return; // the replaced table's own folders
    }
    if (same(location, warehouse) || Locations.isInside(location, warehouse)) {
      throw CatalogErrors.locationInUse(table, location, "it contains the catalog's warehouse " + warehouse
          + " (every namespace and table of the catalog)");
    }
    try {
      if (holdsTableMetadata(io, location)) {
        throw CatalogErrors.locationInUse(table, location, "it already holds the metadata of "
            + owner(io, warehouse, location));
      }
      for (String dir = parent(canonical); dir != null; dir = parent(dir)) {
        if (holdsTableMetadata(io, dir)) {
          throw CatalogErrors.locationInUse(table, location, "it is inside the location " + dir + " of "
              + owner(io, warehouse, dir));
        }
      }
      if (Locations.isInside(warehouse, location) && !same(location, defaultLocation)) {
        throw CatalogErrors.locationInUse(table, location, "it is inside the catalog's warehouse " + warehouse
            + ", whose folders belong to namespaces and tables (" + owner(io, warehouse, location)
            + "); the table's own folder there is " + defaultLocation);
      }
      if (!io.exists(location)) {
        return;
      }
      String file = firstFile(io, location);
      if (file != null) {
        throw CatalogErrors.locationInUse(table, location, "it already holds files, e.g. " + file
            + " (the data of another table, or files of your own)");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check location " + location + " of new table " + table, e);
    }
  }

  /**
   * Before {@code action} deletes files of a table: when the table's location is not the folder of
   * its own metadata ({@code metadataRoot}), its {@code metadata/} must not hold the metadata of a
   * table with another UUID. Throws {@link CatalogErrors#locationShared} naming the file and both UUIDs.
   */
  public static void checkSoleOwner(FileIO io, TableMetadata metadata, String metadataRoot, String table,
      String action) {
    String location = metadata.location();
    if (location == null || same(location, metadataRoot)) {
      return;
    }
    String unsafe = unsafeLocation(location, metadataRoot);
    if (unsafe != null) {
      throw CatalogErrors.unsafeLocation(action, table, location, unsafe);
    }
    String dir = location + "/metadata";
    try {
      if (!io.exists(dir)) {
        return;
      }
      String newest = null;
      for (String name : io.listFileNames(dir)) {
        if (name.endsWith(METADATA_SUFFIX)) {
          newest = newest == null ? dir + "/" + name : newer(newest, dir + "/" + name);
        }
      }
      if (newest != null) {
        checkUuids(io, metadata, List.of(newest), table, action);
        // same UUID: a table registered from another live table's metadata; the files are shared
        throw CatalogErrors.unsafeLocation(action, table, location, "is also the folder of the table whose metadata"
            + " is " + newest + " (this table was registered from it, so both use the same files). Run " + action
            + " on that table instead");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + dir + " before running " + action + " table " + table, e);
    }
  }

  /**
   * Why a table whose metadata lives in {@code metadataRoot} must never delete below {@code location}
   * (a file system root, a folder holding the table's own metadata folder and so the warehouse, or an
   * unparseable location); null when the location is usable.
   */
  static String unsafeLocation(String location, String metadataRoot) {
    String canonical = Locations.canonical(location);
    if (canonical == null) {
      return "cannot be parsed or has a '.' or '..' segment";
    }
    if (canonical.endsWith(":/") || canonical.matches("[a-z0-9+.-]+://[^/]*/?")) {
      return "is the root of a file system";
    }
    if (Locations.isInside(location, metadataRoot)) {
      return "contains the table's own folder " + metadataRoot + " in the warehouse (other tables and namespaces)";
    }
    return null;
  }

  /**
   * Before register_table publishes {@code metadata} as table {@code table} in {@code newRoot}: its
   * location must be usable ({@link #unsafeLocation}) and must not contain the warehouse. It may be
   * the folder of another live table (as Iceberg allows); {@link #checkSoleOwner} then keeps
   * expiry, orphan removal and purge of the registered table from deleting the shared files.
   */
  public static void checkRegistered(FileIO io, String warehouse, String newRoot, TableMetadata metadata,
      String table) {
    String location = metadata.location();
    String unsafe = location == null ? "is missing" : unsafeLocation(location, newRoot);
    if (unsafe == null && (same(location, warehouse) || Locations.isInside(location, warehouse))) {
      unsafe = "contains the catalog's warehouse " + warehouse;
    }
    if (unsafe != null) {
      throw CatalogErrors.unsafeLocation("register", table, String.valueOf(location), unsafe);
    }
  }

  /**
   * Before orphan removal deletes listed files: no listed {@code *.metadata.json} outside the
   * table's own metadata folder may belong to a table with another UUID (a table nested in this
   * table's location, or sharing it). One file per folder is read.
   */
  public static void checkNoForeignMetadata(FileIO io, TableMetadata metadata, String metadataRoot,
      Collection<String> listed, String table, String action) {
    String own = metadataRoot + "/metadata";
    Map<String, String> newestByFolder = new TreeMap<>();
    for (String file : listed) {
      String name = file.substring(file.lastIndexOf('/') + 1);
      if (!name.endsWith(METADATA_SUFFIX) || name.startsWith(".") || name.startsWith("_")) {
        continue;
      }
      String folder = file.substring(0, file.lastIndexOf('/'));
      if (!same(folder, own)) {
        newestByFolder.merge(folder, file, TableLocations::newer);
      }
    }
    checkUuids(io, metadata, newestByFolder.values(), table, action);
  }

  private static void checkUuids(FileIO io, TableMetadata metadata, Collection<String> files, String table,
      String action) {
    for (String file : files) {
      String other;
      try {
        other = TableMetadataParser.read(io, file).uuid();
      } catch (RuntimeException e) {
        other = "unknown: the file cannot be read (" + e.getMessage() + ")";
      }
      if (other == null || !Objects.equals(other, metadata.uuid())) {
        throw CatalogErrors.locationShared(action, table, metadata.location(), file, metadata.uuid(), other);
      }
    }
  }

  /** Of two metadata files, the newer: higher {@code v<N>}, else the later name. */
  private static String newer(String a, String b) {
    long va = version(a);
    long vb = version(b);
    if (va != vb) {
      return va > vb ? a : b;
    }
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static long version(String file) {
    Matcher m = VERSION_FILE.matcher(file.substring(file.lastIndexOf('/') + 1));
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  private static boolean holdsTableMetadata(FileIO io, String dir) throws IOException {
    if (!io.exists(dir + "/metadata")) {
      return false;
    }
    for (String name : io.listFileNames(dir + "/metadata")) {
      if (name.endsWith(METADATA_SUFFIX)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Who owns a folder: {@code table db.t (table-uuid ...)} for a table's folder in the warehouse,
   * {@code the folder of db.x} for another warehouse folder, {@code another table (table-uuid ...)}
   * outside the warehouse.
   */
  private static String owner(FileIO io, String warehouse, String dir) {
    String w = Locations.canonical(warehouse);
    String d = Locations.canonical(dir);
    String uuid = uuidAt(io, dir);
    String suffix = uuid == null ? "" : " (table-uuid " + uuid + ")";
    if (w != null && d != null && d.startsWith(w + "/")) {
      String name = d.substring(w.length() + 1).replace('/', '.');
      return (uuid != null ? "table " : "the folder of ") + name + suffix;
    }
    return "another table" + suffix;
  }

  private static String uuidAt(FileIO io, String dir) {
    try {
      String newest = null;
      for (String name : io.listFileNames(dir + "/metadata")) {
        if (name.endsWith(METADATA_SUFFIX)) {
          String file = dir + "/metadata/" + name;
          newest = newest == null ? file : newer(newest, file);
        }
      }
      return newest == null ? null : TableMetadataParser.read(io, newest).uuid();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** A first non-hidden file below {@code dir}, or null. */
  private static String firstFile(FileIO io, String dir) throws IOException {
    Deque<String> folders = new ArrayDeque<>();
    folders.add(dir);
    int visited = 0;
    while (!folders.isEmpty() && visited++ < MAX_FOLDERS_VISITED) {
      String folder = folders.poll();
      List<String> files = io.listFileNames(folder);
      if (!files.isEmpty()) {
        return folder + "/" + files.get(0);
      }
      for (String child : io.listDirectoryNames(folder)) {
        folders.add(folder + "/" + child);
      }
    }
    return null;
  }

  /** The parent of a canonical location, or null above the top folder (no table lives at the root). */
  private static String parent(String canonical) {
    int slash = canonical.lastIndexOf('/');
    String parent = slash < 0 ? "" : canonical.substring(0, slash);
    int pathStart = parent.startsWith("file:") ? "file:".length() : parent.indexOf('/', parent.indexOf("://") + 3);
    return pathStart < 0 || parent.length() <= pathStart ? null : parent;
  }

  private static boolean same(String a, String b) {
    String ca = Locations.canonical(a);
    return ca != null && ca.equals(Locations.canonical(b));
  }
}
