package io.floe.format.catalog;

import io.floe.format.FloeFormatException;
import io.floe.format.ProcedureErrors;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.MetadataFileCache;
import io.floe.format.deletes.PositionDeleteRewriter;
import io.floe.format.io.FileIO;
import io.floe.format.io.Locations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The warehouse layout of Iceberg's file-system catalog: {@code <warehouse>/<ns...>/<table>/metadata/}.
 * A directory is a table when its {@code metadata/} holds a {@code *.metadata.json} file, otherwise it
 * is a namespace. Namespace properties live in a hidden {@code .namespace-properties.json} file that
 * other engines ignore.
 *
 * <p>Parsed metadata is shared by every table loaded through this catalog ({@link MetadataFileCache}):
 * each load still finds the current version on storage, and parses it only when that file's bytes
 * are new.
 */
public final class FileSystemCatalog {
  private static final String NAMESPACE_PROPERTIES = ".namespace-properties.json";

  private final FileIO io;
  private final String warehouse;
  private final MetadataFileCache metadataCache = new MetadataFileCache();

  public FileSystemCatalog(FileIO io, String warehouse) {
    this.io = io;
    String w = warehouse;
    while (w.endsWith("/") && w.length() > 1 && !w.endsWith("://") && !w.endsWith(":/")) {
      w = w.substring(0, w.length() - 1);
    }
    this.warehouse = w;
  }

  public FileIO io() {
    return io;
  }

  public String warehouse() {
    return warehouse;
  }

  /**
   * The folder of a namespace: the one place where locations are built from names (tables use it
   * too). Names are checked by {@link Identifiers}, locations are never percent-decoded, and the
   * result is checked to lie inside the warehouse before anything is created or deleted there.
   */
  public String namespaceLocation(List<String> namespace) {
    Identifiers.checkNamespace(namespace);
    return namespace.isEmpty() ? warehouse : inside(warehouse + "/" + String.join("/", namespace), namespace);
  }

  public String tableLocation(TableIdentifier ident) {
    Identifiers.checkPart("table name", ident.name());
    List<String> parts = new ArrayList<>(ident.namespace());
    parts.add(ident.name());
    return inside(namespaceLocation(ident.namespace()) + "/" + ident.name(), parts);
  }

  private String inside(String location, List<String> parts) {
    if (!Locations.isInside(warehouse, location)) {
      throw CatalogErrors.invalidIdentifier("name", CatalogErrors.display(parts),
          "its folder " + location + " would not lie inside the warehouse " + warehouse);
    }
    return location;
  }

  public FileSystemTableOperations newTableOps(TableIdentifier ident) {
    return new FileSystemTableOperations(io, tableLocation(ident), ident.toString(), metadataCache);
  }

  /** The parsed metadata shared by the tables of this catalog. */
  public MetadataFileCache metadataCache() {
    return metadataCache;
  }

  /**
   * Whether {@code metadata/} holds a {@code *.metadata.json}: first the cheap way (the version the
   * hint names exists; no {@code metadata/} at all), listing only when neither settles it.
   */
  private boolean isTableDir(String dir) throws IOException {
    if (new FileSystemTableOperations(io, dir, dir, metadataCache).hasHintedVersion()) {
      return true;
    }
    if (!io.exists(dir + "/metadata")) {
      return false;
    }
    for (String name : io.listFileNames(dir + "/metadata")) {
      if (name.endsWith(".metadata.json")) {
        return true;
      }
    }
    return false;
  }

  // ---- namespaces ----

  public boolean namespaceExists(List<String> namespace) {
    if (namespace.isEmpty()) {
      return true;
    }
    try {
      String dir = namespaceLocation(namespace);
      return io.exists(dir) && !isTableDir(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check namespace " + CatalogErrors.display(namespace), e);
    }
  }

  public List<List<String>> listNamespaces(List<String> parent) {
    if (!namespaceExists(parent)) {
      throw CatalogErrors.noSuchNamespace(parent);
    }
    List<List<String>> out = new ArrayList<>();
    try {
      String dir = namespaceLocation(parent);
      for (String child : io.listDirectoryNames(dir)) {
        if (!isTableDir(dir + "/" + child) && isValidName(child)) {
          List<String> ns = new ArrayList<>(parent);
          ns.add(child);
          out.add(ns);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list namespaces in " + CatalogErrors.display(parent), e);
    }
    return out;
  }

  private static boolean isValidName(String name) {
    try {
      Identifiers.checkPart("name", name);
      return true;
    } catch (CatalogException e) {
      return false;
    }
  }

  public void createNamespace(List<String> namespace, Map<String, String> properties) {
    if (namespace.isEmpty()) {
      throw CatalogErrors.invalidIdentifier("namespace", "", "namespace must have at least one level");
    }
    Identifiers.checkNamespace(namespace);
    String dir = namespaceLocation(namespace);
    try {
      if (io.exists(dir)) {
        if (isTableDir(dir)) {
          throw CatalogErrors.tableAtNamespaceFolder(namespace, dir);
        }
        throw CatalogErrors.namespaceExists(namespace);
      }
      List<String> parent = namespace.subList(0, namespace.size() - 1);
      if (!parent.isEmpty() && !namespaceExists(parent)) {
        throw CatalogErrors.noSuchNamespace(parent);
      }
      io.mkdirs(dir);
      if (!properties.isEmpty()) {
        writeNamespaceProperties(namespace, properties);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create namespace " + CatalogErrors.display(namespace), e);
    }
  }

  public Map<String, String> loadNamespaceProperties(List<String> namespace) {
    if (namespace.isEmpty() || !namespaceExists(namespace)) {
      throw CatalogErrors.noSuchNamespace(namespace);
    }
    Map<String, String> props = new LinkedHashMap<>();
    String file = namespaceLocation(namespace) + "/" + NAMESPACE_PROPERTIES;
    try {
      if (io.exists(file)) {
        String json = new String(io.newInputFile(file).readAllBytes(), StandardCharsets.UTF_8);
        props.putAll(JsonUtil.getStringMap("properties", JsonUtil.parse(json)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read properties of namespace " + CatalogErrors.display(namespace), e);
    }
    props.put("location", namespaceLocation(namespace));
    return props;
  }

  public void setNamespaceProperties(List<String> namespace, Map<String, String> updates, List<String> removals) {
    Map<String, String> props = loadNamespaceProperties(namespace);
    props.remove("location");
    props.putAll(updates);
    removals.forEach(props::remove);
    writeNamespaceProperties(namespace, props);
  }

  private void writeNamespaceProperties(List<String> namespace, Map<String, String> props) {
    Map<String, String> stored = new LinkedHashMap<>(props);
    stored.remove("location");
    String dir = namespaceLocation(namespace);
    String temp = dir + "/" + NAMESPACE_PROPERTIES + "." + java.util.UUID.randomUUID() + ".tmp";
    try {
      try (OutputStream out = io.newOutputFile(temp).create()) {
        out.write(JsonUtil.generate(gen -> {
          gen.writeStartObject();
          JsonUtil.writeStringMap("properties", stored, gen);
          gen.writeEndObject();
        }).getBytes(StandardCharsets.UTF_8));
      }
      io.replace(temp, dir + "/" + NAMESPACE_PROPERTIES);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write properties of namespace " + CatalogErrors.display(namespace), e);
    }
  }

  /** Drops a namespace; a non-empty one only with {@code cascade}, which removes everything below it. */
  public boolean dropNamespace(List<String> namespace, boolean cascade) {
    if (namespace.isEmpty() || !namespaceExists(namespace)) {
      return false;
    }
    String dir = namespaceLocation(namespace);
    try {
      List<String> children = new ArrayList<>(io.listDirectoryNames(dir));
      if (!children.isEmpty() && !cascade) {
        throw CatalogErrors.namespaceNotEmpty(namespace, children);
      }
      return io.deleteRecursively(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot drop namespace " + CatalogErrors.display(namespace), e);
    }
  }

  // ---- tables ----

  public List<TableIdentifier> listTables(List<String> namespace) {
    if (!namespaceExists(namespace)) {
      throw CatalogErrors.noSuchNamespace(namespace);
    }
    List<TableIdentifier> out = new ArrayList<>();
    try {
      String dir = namespaceLocation(namespace);
      for (String child : io.listDirectoryNames(dir)) {
        if (isValidName(child) && isTableDir(dir + "/" + child)) {
          out.add(TableIdentifier.of(namespace, child));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list tables in " + CatalogErrors.display(namespace), e);
    }
    return out;
  }

  public boolean tableExists(TableIdentifier ident) {
    try {
      return isTableDir(tableLocation(ident));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check table " + ident, e);
    }
  }

  /**
   * Loads a table's operations with current metadata; fails when the table does not exist, that is
   * when no {@code v<N>.metadata.json} is found (refresh settles that without a {@link #tableExists}).
   */
  public FileSystemTableOperations loadTable(TableIdentifier ident) {
    FileSystemTableOperations ops = newTableOps(ident);
    if (ops.refresh() == null) {
      throw CatalogErrors.noSuchTable(ident);
    }
    return ops;
  }

  /**
   * Checks, before any file of a new table is written, that {@code ident} can become a table: its
   * namespace exists, and its folder does not exist at all (a namespace of the same name, or
   * anything else, lives there). A table and a namespace never share a folder, so DROP of one
   * cannot remove the other.
   */
  public void checkCanCreateTable(TableIdentifier ident) {
    if (!namespaceExists(ident.namespace())) {
      throw CatalogErrors.noSuchNamespace(ident.namespace());
    }
    if (tableExists(ident)) {
      throw CatalogErrors.tableExists(ident);
    }
    String dir = tableLocation(ident);
    try {
      if (io.exists(dir)) {
        throw CatalogErrors.folderTaken(ident, dir, folderContents(dir));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check the folder of table " + ident, e);
    }
  }

  /**
   * Checks at commit time that the folder of new table {@code ident} holds at most what its own
   * write put there ({@code data/}, {@code metadata/}): a namespace or other files that appeared
   * since {@link #checkCanCreateTable} keep the table from being created.
   */
  private void checkFolderFreeForCreate(TableIdentifier ident) {
    String dir = tableLocation(ident);
    try {
      if (!io.exists(dir)) {
        return;
      }
      List<String> others = new ArrayList<>(folderContents(dir));
      others.removeAll(List.of("data", "metadata"));
      if (!others.isEmpty()) {
        throw CatalogErrors.folderTaken(ident, dir, others);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check the folder of table " + ident, e);
    }
  }

  private List<String> folderContents(String dir) throws IOException {
    List<String> names = new ArrayList<>(io.listDirectoryNames(dir));
    names.addAll(io.listFileNames(dir));
    return names;
  }

  /**
   * Creates a table by publishing its first metadata version; fails if it exists, or if its folder
   * exists at all ({@link #checkCanCreateTable}).
   */
  public FileSystemTableOperations createTable(TableIdentifier ident, TableMetadata metadata) {
    checkCanCreateTable(ident);
    return publishFirstVersion(ident, metadata);
  }

  /**
   * Creates a table whose files a staged statement (CTAS, CREATE OR REPLACE) already wrote into its
   * folder after {@link #checkCanCreateTable} passed: the folder may hold {@code data/} and
   * {@code metadata/}, nothing else.
   */
  public FileSystemTableOperations createStagedTable(TableIdentifier ident, TableMetadata metadata) {
    if (!namespaceExists(ident.namespace())) {
      throw CatalogErrors.noSuchNamespace(ident.namespace());
    }
    if (tableExists(ident)) {
      throw CatalogErrors.tableExists(ident);
    }
    checkFolderFreeForCreate(ident);
    return publishFirstVersion(ident, metadata);
  }

  private FileSystemTableOperations publishFirstVersion(TableIdentifier ident, TableMetadata metadata) {
    FileSystemTableOperations ops = newTableOps(ident);
    try {
      ops.commit(null, metadata);
    } catch (CommitFailedException e) {
      throw CatalogErrors.tableExists(ident);
    }
    return ops;
  }

  /**
   * Registers an existing {@code metadata.json} (e.g. of a table copied from another warehouse, or
   * left behind by a dropped catalog entry) as table {@code ident}. A file-system catalog finds a
   * table by its directory, so the metadata is published as version 1 under
   * {@code <warehouse>/<ns>/<name>/metadata/}, with the source file recorded in its metadata-log.
   * Nothing else moves: the table's {@code location}, data files, manifests and manifest lists stay
   * where the metadata says, and new commits write their data under that location. Fails when the
   * table exists or the file cannot be read as table metadata.
   */
  public FileSystemTableOperations registerTable(TableIdentifier ident, String metadataFile) {
    checkCanCreateTable(ident);
    checkMetadataFileName(ident, metadataFile);
    boolean exists;
    try {
      exists = io.exists(metadataFile);
    } catch (IOException e) {
      exists = false;
    }
    if (!exists) {
      throw new FloeFormatException("Cannot register table " + ident + " from " + metadataFile
          + ": the file does not exist or cannot be read");
    }
    TableMetadata metadata;
    try {
      metadata = TableMetadataParser.read(io, metadataFile);
    } catch (UncheckedIOException e) {
      throw new FloeFormatException("Cannot register table " + ident + " from " + metadataFile
          + ": the file cannot be read (" + e.getClass().getSimpleName() + ")", e);
    } catch (IllegalArgumentException | FloeFormatException e) {
      // the parser's messages name the file and the problem, never the file's contents
      throw new FloeFormatException("Cannot register table " + ident + " from " + metadataFile + ": "
          + e.getMessage() + " (pass the location of a table's metadata/*.metadata.json file)", e);
    }
    TableLocations.checkRegistered(io, warehouse, tableLocation(ident), metadata, ident.toString());
    FileSystemTableOperations ops = newTableOps(ident);
    try {
      ops.commit(null, metadata);
    } catch (CommitFailedException e) {
      throw CatalogErrors.tableExists(ident);
    }
    return ops;
  }

  /**
   * register_table takes only what a table's metadata file is named: {@code <location>/metadata/
   * *.metadata.json} (gzipped ones too). Anything else is refused before it is opened, so the
   * procedure cannot be used to read other files.
   */
  private static void checkMetadataFileName(TableIdentifier ident, String metadataFile) {
    String path = metadataFile == null ? "" : metadataFile;
    int slash = path.lastIndexOf('/');
    String name = path.substring(slash + 1);
    String parent = slash <= 0 ? "" : path.substring(0, slash);
    String folder = parent.substring(parent.lastIndexOf('/') + 1);
    boolean metadataName = name.endsWith(".metadata.json") || name.endsWith(".metadata.json.gz");
    if (!metadataName || !folder.equals("metadata") || Locations.canonical(path) == null) {
      throw ProcedureErrors.invalidArgument("register_table", "metadata_file", "Cannot register table " + ident
          + " from " + metadataFile
          + ": expected the location of a table's metadata file, <table location>/metadata/<name>.metadata.json"
          + " (for example .../metadata/v3.metadata.json or .../metadata/00003-<uuid>.metadata.json)");
    }
  }

  /**
   * Drops a table: removes its own {@code metadata/} and {@code data/} folders under the warehouse,
   * then its folder when nothing else is left in it; a folder that holds anything else (a namespace
   * or table written there by an older Floe, files of other tools) keeps it, and so does a
   * {@code data/} folder that holds another table or namespace. With {@code purge}, also deletes
   * every file the table's metadata references below its location outside that folder.
   */
  public boolean dropTable(TableIdentifier ident, boolean purge) {
    if (!tableExists(ident)) {
      return false;
    }
    String dir = tableLocation(ident);
    if (purge) {
      FileSystemTableOperations ops = newTableOps(ident);
      TableMetadata metadata = ops.refresh();
      if (metadata != null) {
        TableLocations.checkSoleOwner(io, metadata, dir, ident.toString(), "purge");
        TableFiles.deleteAllOutside(io, metadata, dir);
      }
    }
    metadataCache.invalidate(dir);
    try {
      deleteOwnFolder(dir + "/data");
      boolean dropped = io.deleteRecursively(dir + "/metadata");
      if (io.exists(dir) && folderContents(dir).isEmpty()) {
        io.deleteRecursively(dir);
      }
      return dropped;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot drop table " + ident + " at " + dir, e);
    }
  }

  /** Deletes a table's {@code data/} folder unless another table or a namespace lives below it. */
  private void deleteOwnFolder(String folder) throws IOException {
    if (!io.exists(folder)) {
      return;
    }
    for (io.floe.format.io.FileInfo file : io.listRecursively(folder)) {
      String path = file.location();
      if (path.endsWith(".metadata.json") || path.endsWith("/" + NAMESPACE_PROPERTIES)) {
        return; // not only this table's: keep it rather than delete someone else's
      }
    }
    io.deleteRecursively(folder);
  }

  /**
   * Renames a table without an engine to rewrite Parquet: fails, changing nothing, when the table
   * has Parquet position delete files naming its data files (see
   * {@link #renameTable(TableIdentifier, TableIdentifier, PositionDeleteRewriter)}).
   */
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    renameTable(from, to, null);
  }

  /**
   * Renames a table: its directory moves to the new name and a new metadata version names every
   * file by its new path. First, with the table still in place, every path of its metadata is
   * rewritten ({@link TableRelocation}): new manifests and manifest lists, and new copies of the
   * delete files whose content names data files (Parquet position delete files through
   * {@code rewriter}, Puffin deletion vectors here). Then the directory moves and the new version
   * is committed, on condition that nobody committed meanwhile. If anything fails the directory
   * moves back and the files the attempt wrote are deleted: the table keeps its old name and rows.
   * Only when the commit's outcome is unknown is nothing moved back or deleted.
   */
  public void renameTable(TableIdentifier from, TableIdentifier to, PositionDeleteRewriter rewriter) {
    FileSystemTableOperations ops = loadTable(from);
    if (!namespaceExists(to.namespace())) {
      throw CatalogErrors.noSuchNamespace(to.namespace());
    }
    if (tableExists(to)) {
      throw CatalogErrors.tableExists(to);
    }
    String oldRoot = tableLocation(from);
    String newRoot = tableLocation(to);
    if (!io.renamesDirectoriesAtomically(oldRoot) || !io.renamesDirectoriesAtomically(newRoot)) {
      throw CatalogErrors.renameOnObjectStore(from, to, oldRoot);
    }
    TableMetadata base = ops.current();
    int version = ops.currentVersion();
    TableRelocation relocation = new TableRelocation(ops, oldRoot, newRoot, rewriter);
    TableMetadata relocated;
    try {
      relocated = relocation.relocate(base);
    } catch (RuntimeException e) {
      relocation.deleteWritten(e);
      throw CatalogErrors.renameFailed(from, to, e);
    }
    metadataCache.invalidate(oldRoot);
    try {
      if (io.exists(newRoot)) {
        throw CatalogErrors.tableExists(to);
      }
      io.renameDirectory(oldRoot, newRoot);
    } catch (java.nio.file.FileAlreadyExistsException | CatalogException e) {
      relocation.deleteWritten(e);
      throw CatalogErrors.tableExists(to);
    } catch (IOException e) {
      relocation.deleteWritten(e);
      throw CatalogErrors.renameFailed(from, to, e);
    }
    commitMoved(from, to, version, relocated, relocation);
  }

  /** Commits the relocated metadata in the moved directory; on failure, moves it back. */
  private void commitMoved(TableIdentifier from, TableIdentifier to, int version, TableMetadata relocated,
      TableRelocation relocation) {
    String oldRoot = tableLocation(from);
    String newRoot = tableLocation(to);
    try {
      FileSystemTableOperations moved = newTableOps(to);
      TableMetadata movedBase = moved.refresh();
      if (movedBase == null || moved.currentVersion() != version) {
        throw new CommitFailedException("table " + from + " changed while its files were rewritten (version "
            + version + ", now " + moved.currentVersion() + ")");
      }
      moved.commit(movedBase, relocated);
    } catch (CommitStateUnknownException e) {
      throw new CommitStateUnknownException("Cannot tell whether renaming table " + from + " to " + to
          + " committed; its directory is now " + newRoot + ", and stays there", e);
    } catch (RuntimeException e) {
      metadataCache.invalidate(newRoot);
      try {
        io.renameDirectory(newRoot, oldRoot);
      } catch (IOException | RuntimeException moveBack) {
        e.addSuppressed(moveBack);
        throw CatalogErrors.renameNotUndone(from, to, newRoot, oldRoot, e);
      }
      relocation.deleteWritten(e);
      throw CatalogErrors.renameFailed(from, to, e);
    }
  }
}
