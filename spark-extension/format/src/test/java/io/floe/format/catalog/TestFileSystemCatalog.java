package io.floe.format.catalog;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeException;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestFileSystemCatalog {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  private FileSystemCatalog catalog() {
    return new FileSystemCatalog(new LocalFileIO(), "file://" + temp.getRoot().getAbsolutePath());
  }

  private FileSystemTableOperations create(FileSystemCatalog catalog, TableIdentifier ident) {
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), catalog.tableLocation(ident), Map.of(), 2);
    return catalog.createTable(ident, metadata);
  }

  @Test
  public void hostileNamesAreRejectedAndNothingIsCreatedOutside() throws Exception {
    FileSystemCatalog catalog = catalog();
    Path outside = temp.getRoot().toPath().getParent();
    long before;
    try (var s = Files.list(outside)) {
      before = s.count();
    }
    for (String bad : List.of("", ".", "..", "../escape", "a/b", "a\\b", "tab\there", "nul\u0000", ".hidden",
        "file:x", "%2E%2E", "%2E%2E%2F%2E%2E%2Fescaped", "a%2Fb", "x%20y", "q?x", "h#x", "*", "rtl\u202eexe",
        " lead", "trail ", "x".repeat(128) + "\u00e9".repeat(64))) {
      try {
        catalog.createNamespace(List.of(bad), Map.of());
        fail("namespace name must be rejected: " + bad);
      } catch (CatalogException e) {
        assertEquals(CatalogException.Kind.INVALID_IDENTIFIER, e.kind());
      }
      try {
        TableIdentifier.of(List.of("db"), bad);
        fail("table name must be rejected: " + bad);
      } catch (CatalogException e) {
        assertEquals(CatalogException.Kind.INVALID_IDENTIFIER, e.kind());
      }
    }
    try (var s = Files.list(outside)) {
      assertEquals(before, s.count());
    }
  }

  @Test
  public void namespacesAndTables() {
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("db"), Map.of("comment", "hello"));
    catalog.createNamespace(List.of("db", "inner"), Map.of());
    assertEquals("hello", catalog.loadNamespaceProperties(List.of("db")).get("comment"));
    TableIdentifier t = TableIdentifier.of(List.of("db"), "t");
    create(catalog, t);
    assertEquals(List.of(List.of("db", "inner")), catalog.listNamespaces(List.of("db")));
    assertEquals(List.of(t), catalog.listTables(List.of("db")));
    try {
      create(catalog, t);
      fail("creating an existing table must fail");
    } catch (CatalogException e) {
      assertEquals(CatalogException.Kind.TABLE_EXISTS, e.kind());
    }
    try {
      catalog.dropNamespace(List.of("db"), false);
      fail("dropping a non-empty namespace must fail");
    } catch (CatalogException e) {
      assertEquals(CatalogException.Kind.NAMESPACE_NOT_EMPTY, e.kind());
      assertTrue(e.getMessage().contains("CASCADE"));
    }
    assertTrue(catalog.dropNamespace(List.of("db"), true));
    assertFalse(catalog.namespaceExists(List.of("db")));
  }

  @Test
  public void purgeDeletesOnlyInsideTheTableRoots() throws Exception {
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("db"), Map.of());
    TableIdentifier ident = TableIdentifier.of(List.of("db"), "t");
    Path custom = temp.newFolder("custom-location").toPath();
    Path elsewhere = temp.newFolder("elsewhere").toPath();
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), "file://" + custom, Map.of(), 2);
    FileSystemTableOperations ops = catalog.createTable(ident, metadata);
    Path inLocation = Files.createDirectories(custom.resolve("data")).resolve("a.parquet");
    Path registered = elsewhere.resolve("b.parquet");
    Files.writeString(inLocation, "x");
    Files.writeString(registered, "y");
    for (Path p : List.of(inLocation, registered)) {
      new AppendFiles(ops).appendFile(DataFile.builder(metadata.spec()).withPath("file://" + p)
          .withFormat(FileFormat.PARQUET).withPartition(PartitionData.empty()).withRecordCount(1)
          .withFileSizeInBytes(1).withMetrics(Metrics.empty(1)).build()).commit();
    }
    assertTrue(catalog.dropTable(ident, true));
    assertFalse("files under the table's location are purged", Files.exists(inLocation));
    assertTrue("files outside the table's roots are never deleted", Files.exists(registered));
    assertFalse(catalog.tableExists(ident));
  }

  @Test
  public void renameKeepsDataAndHistory() {
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("db"), Map.of());
    catalog.createNamespace(List.of("other"), Map.of());
    TableIdentifier from = TableIdentifier.of(List.of("db"), "t");
    FileSystemTableOperations ops = create(catalog, from);
    TableMetadata base = ops.refresh();
    DataFile file = DataFile.builder(base.spec())
        .withPath(base.location() + "/data/f.parquet").withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.empty()).withRecordCount(3).withFileSizeInBytes(10)
        .withMetrics(Metrics.empty(3)).build();
    new AppendFiles(ops).appendFile(file).commit();
    new AppendFiles(ops).appendFile(DataFile.builder(base.spec()).copy(file)
        .withPath(base.location() + "/data/g.parquet").build()).commit();

    TableIdentifier to = TableIdentifier.of(List.of("other"), "renamed");
    catalog.renameTable(from, to);
    assertFalse(catalog.tableExists(from));
    FileSystemTableOperations moved = catalog.loadTable(to);
    TableMetadata metadata = moved.current();
    assertEquals(catalog.tableLocation(to), metadata.location());
    assertEquals(2, metadata.snapshots().size());
    List<String> paths = TableScan.of(moved.io(), metadata).planFiles().tasks().stream()
        .map(t -> t.file().path()).sorted().toList();
    assertEquals(List.of(catalog.tableLocation(to) + "/data/f.parquet", catalog.tableLocation(to) + "/data/g.parquet"),
        paths);
    long firstSnapshot = metadata.snapshots().get(0).snapshotId();
    assertEquals(1, TableScan.of(moved.io(), metadata).useSnapshot(metadata.snapshot(firstSnapshot))
        .planFiles().tasks().size());
  }

  @Test
  public void unicodeLettersDigitsAndSpacesAreNames() throws Exception {
    FileSystemCatalog catalog = catalog();
    for (String good : List.of("caf\u00e9", "\u8868", "\u0928\u092e\u0938\u094d\u0924\u0947", "a b", "v1.2",
        "$x-y_z", "\u00c5ngstr\u00f6m")) {
      catalog.createNamespace(List.of(good), Map.of());
      TableIdentifier t = TableIdentifier.of(List.of(good), good);
      create(catalog, t);
      assertTrue(good, catalog.tableExists(t));
      assertTrue(good, Files.isDirectory(temp.getRoot().toPath().resolve(good).resolve(good).resolve("metadata")));
      assertEquals(List.of(t), catalog.listTables(List.of(good)));
    }
  }

  @Test
  public void locationsAreNeverPercentDecoded() {
    assertEquals("/w/db/%2E%2E", LocalFileIO.toPath("file:///w/db/%2E%2E").toString());
    assertEquals("/w/a b", LocalFileIO.toPath("file:/w/a b").toString());
    assertTrue(io.floe.format.io.Locations.isInside("file:///w/db", "file:///w/db/%2E%2E/x"));
    assertFalse(io.floe.format.io.Locations.isInside("file:///w/db", "file:///w/db/../x"));
  }

  @Test
  public void aTableCannotTakeTheFolderOfANamespaceNorTheReverse() {
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("db"), Map.of());
    catalog.createNamespace(List.of("db", "sub"), Map.of());
    TableIdentifier keep = TableIdentifier.of(List.of("db", "sub"), "keep");
    create(catalog, keep);
    TableIdentifier clash = TableIdentifier.of(List.of("db"), "sub");
    try {
      create(catalog, clash);
      fail("a table over a namespace must be refused");
    } catch (CatalogException e) {
      assertEquals(CatalogException.Kind.NAME_CONFLICT, e.kind());
      assertTrue(e.getMessage(), e.getMessage().contains("namespace db.sub"));
    }
    catalog.createNamespace(List.of("ns2"), Map.of());
    try {
      create(catalog, TableIdentifier.of(List.of(), "ns2"));
      fail("a table over a namespace at the root must be refused");
    } catch (CatalogException e) {
      assertEquals(CatalogException.Kind.NAME_CONFLICT, e.kind());
    }
    TableIdentifier t = TableIdentifier.of(List.of("db"), "t");
    create(catalog, t);
    try {
      catalog.createNamespace(List.of("db", "t"), Map.of());
      fail("a namespace over a table must be refused");
    } catch (CatalogException e) {
      assertEquals(CatalogException.Kind.NAME_CONFLICT, e.kind());
      assertTrue(e.getMessage(), e.getMessage().contains("table db.t"));
    }
    assertTrue(catalog.tableExists(keep));
    assertEquals(List.of(List.of("db", "sub")), catalog.listNamespaces(List.of("db")));
  }

  @Test
  public void dropTableDeletesOnlyItsOwnFolders() throws Exception {
    // a table and a namespace sharing a folder, as older versions allowed: DROP keeps the namespace
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("db"), Map.of());
    catalog.createNamespace(List.of("db", "sub"), Map.of());
    TableIdentifier keep = TableIdentifier.of(List.of("db", "sub"), "keep");
    create(catalog, keep);
    TableIdentifier shared = TableIdentifier.of(List.of("db"), "sub");
    FileSystemTableOperations ops = catalog.newTableOps(shared);
    ops.commit(null, TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(), SortOrder.unsorted(),
        catalog.tableLocation(shared), Map.of(), 2));
    Path dataFile = Files.createDirectories(temp.getRoot().toPath().resolve("db/sub/data")).resolve("f.parquet");
    Files.writeString(dataFile, "x");
    assertTrue(catalog.dropTable(shared, true));
    assertTrue("the namespace's table survives", catalog.tableExists(keep));
    assertFalse(Files.exists(dataFile));
    assertFalse(Files.exists(temp.getRoot().toPath().resolve("db/sub/metadata")));
    // a plain table's folder goes entirely
    TableIdentifier t = TableIdentifier.of(List.of("db"), "t");
    create(catalog, t);
    assertTrue(catalog.dropTable(t, false));
    assertFalse(Files.exists(temp.getRoot().toPath().resolve("db/t")));
  }

  @Test
  public void registerTableTakesOnlyMetadataFilesAndNeverEchoesContents() throws Exception {
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("j"), Map.of());
    Path secret = temp.newFile("hostname").toPath();
    Files.writeString(secret, "vm-secret-contents");
    Path fake = Files.createDirectories(temp.getRoot().toPath().resolve("x/metadata")).resolve("v1.metadata.json");
    Files.writeString(fake, "vm-secret-contents");
    for (String file : List.of("file:" + secret, "/etc/hostname", "file:" + fake)) {
      try {
        catalog.registerTable(TableIdentifier.of(List.of("j"), "x"), file);
        fail("must be refused: " + file);
      } catch (FloeException e) {
        assertFalse(e.getMessage(), e.getMessage().contains("secret"));
        assertTrue(e.getMessage(), e.getMessage().contains("metadata"));
      }
    }
    assertFalse(catalog.tableExists(TableIdentifier.of(List.of("j"), "x")));
  }

  @Test
  public void registeredLocationsNeverLetMaintenanceDeleteAnotherTablesFiles() throws Exception {
    FileSystemCatalog catalog = catalog();
    catalog.createNamespace(List.of("db"), Map.of());
    TableIdentifier original = TableIdentifier.of(List.of("db"), "t");
    FileSystemTableOperations ops = create(catalog, original);
    TableMetadata base = ops.refresh();
    Path data = Files.createDirectories(temp.getRoot().toPath().resolve("db/t/data")).resolve("a.parquet");
    Files.writeString(data, "x");
    new AppendFiles(ops).appendFile(DataFile.builder(base.spec()).withPath("file://" + data)
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.empty()).withRecordCount(1)
        .withFileSizeInBytes(1).withMetrics(Metrics.empty(1)).build()).commit();

    // a copy registered from the live table's metadata shares its files: PURGE of the copy is refused
    TableIdentifier copy = TableIdentifier.of(List.of("db"), "copy");
    catalog.registerTable(copy, ops.refresh().metadataFileLocation());
    try {
      catalog.dropTable(copy, true);
      fail("purging a table registered from a live table's metadata must be refused");
    } catch (CatalogException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("same files"));
    }
    assertTrue(Files.exists(data));

    // metadata whose location is a file system root, or contains the warehouse, is never registered
    for (String location : List.of("file:/", "file://" + temp.getRoot().getAbsolutePath())) {
      TableMetadata hostile = TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
          SortOrder.unsorted(), location, Map.of(), 2);
      Path file = Files.createDirectories(temp.getRoot().toPath().resolve("src/metadata")).resolve("v1.metadata.json");
      Files.writeString(file, io.floe.format.metadata.TableMetadataParser.toJson(hostile));
      try {
        catalog.registerTable(TableIdentifier.of(List.of("db"), "hostile"), "file://" + file);
        fail("must be refused: location " + location);
      } catch (CatalogException e) {
        assertEquals(CatalogException.Kind.LOCATION_IN_USE, e.kind());
      }
      assertFalse(catalog.tableExists(TableIdentifier.of(List.of("db"), "hostile")));
    }
  }
}
