package io.floe.format.catalog;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** One table per location: which locations a new table may take, and when maintenance refuses to run. */
public class TestTableLocations {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private final LocalFileIO io = new LocalFileIO();
  private FileSystemCatalog catalog;
  private String warehouse;
  private Path outside;

  @Before
  public void createCatalog() throws IOException {
    Path root = temp.newFolder("warehouse").toPath();
    outside = temp.newFolder("outside").toPath();
    warehouse = "file://" + root;
    catalog = new FileSystemCatalog(io, warehouse);
    catalog.createNamespace(List.of("db"), Map.of());
  }

  private FileSystemTableOperations create(String name, String location) {
    TableIdentifier ident = TableIdentifier.of(List.of("db"), name);
    return catalog.createTable(ident, TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), location == null ? catalog.tableLocation(ident) : location, Map.of(), 2));
  }

  private void checkNew(String name, String location) {
    TableIdentifier ident = TableIdentifier.of(List.of("db"), name);
    TableLocations.checkNewTable(io, warehouse, catalog.tableLocation(ident), location, "floe.db." + name, null);
  }

  private String refused(String name, String location) {
    CatalogException e = assertThrows(CatalogException.class, () -> checkNew(name, location));
    assertEquals(CatalogException.Kind.LOCATION_IN_USE, e.kind());
    assertTrue(e.getMessage(), e.getMessage().contains("floe.db." + name));
    assertTrue(e.getMessage(), e.getMessage().contains(location));
    return e.getMessage();
  }

  @Test
  public void newOrEmptyFoldersAndTheOwnFolderAreAccepted() throws IOException {
    checkNew("t", catalog.tableLocation(TableIdentifier.of(List.of("db"), "t")));
    checkNew("t", "file://" + outside.resolve("new/t"));
    Files.createDirectories(outside.resolve("empty/data"));
    checkNew("t", "file://" + outside.resolve("empty"));
  }

  @Test
  public void aFolderHoldingAnotherTableIsRefusedNamingIt() {
    FileSystemTableOperations orig = create("orig", null);
    String message = refused("copy", catalog.tableLocation(TableIdentifier.of(List.of("db"), "orig")));
    assertTrue(message, message.contains("holds the metadata of table db.orig"));
    assertTrue(message, message.contains(orig.current().uuid()));
  }

  @Test
  public void aFolderWithAnyFileIsRefused() throws IOException {
    Path file = outside.resolve("mine/deep/notes.txt");
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[] {1});
    String message = refused("t", "file://" + outside.resolve("mine"));
    assertTrue(message, message.contains("notes.txt"));
  }

  @Test
  public void foldersInsideATableOrAroundTheWarehouseAreRefused() {
    create("orig", null);
    String orig = catalog.tableLocation(TableIdentifier.of(List.of("db"), "orig"));
    assertTrue(refused("t", orig + "/data/sub").contains("inside"));
    assertTrue(refused("t", warehouse + "/db").contains("inside the catalog's warehouse"));
    assertTrue(refused("t", warehouse + "/db/other").contains("inside the catalog's warehouse"));
    assertTrue(refused("t", warehouse).contains("contains the catalog's warehouse"));
    assertTrue(refused("t", "file://" + temp.getRoot()).contains("contains the catalog's warehouse"));
  }

  @Test
  public void aReplacementKeepsItsOwnFolders() throws IOException {
    String located = "file://" + outside.resolve("located");
    create("t", located);
    Files.createDirectories(outside.resolve("located/data"));
    Files.write(outside.resolve("located/data/f.parquet"), new byte[] {1});
    String own = catalog.tableLocation(TableIdentifier.of(List.of("db"), "t"));
    TableLocations.checkNewTable(io, warehouse, own, located, "floe.db.t", located);
    TableLocations.checkNewTable(io, warehouse, own, own, "floe.db.t", located);
    assertThrows(CatalogException.class,
        () -> TableLocations.checkNewTable(io, warehouse, own, located, "floe.db.t", null));
  }

  @Test
  public void maintenanceRefusesALocationHoldingAnotherTablesMetadata() {
    FileSystemTableOperations orig = create("orig", null);
    String origFolder = catalog.tableLocation(TableIdentifier.of(List.of("db"), "orig"));
    FileSystemTableOperations copy = create("copy", origFolder); // as older Floe allowed
    CatalogException e = assertThrows(CatalogException.class, () -> TableLocations.checkSoleOwner(io,
        copy.current(), copy.metadataRoot(), "db.copy", "remove orphan files of"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Cannot remove orphan files of table db.copy"));
    assertTrue(e.getMessage(), e.getMessage().contains(orig.current().uuid()));
    assertTrue(e.getMessage(), e.getMessage().contains(copy.current().uuid()));
    assertTrue(e.getMessage(), e.getMessage().contains(origFolder + "/metadata/v1.metadata.json"));

    // the table itself, in its own folder, is fine
    TableLocations.checkSoleOwner(io, orig.current(), orig.metadataRoot(), "db.orig", "purge");
    // and DROP TABLE ... PURGE of the copy refuses, leaving the original
    assertThrows(CatalogException.class, () -> catalog.dropTable(TableIdentifier.of(List.of("db"), "copy"), true));
    assertTrue(catalog.tableExists(TableIdentifier.of(List.of("db"), "orig")));
  }

  @Test
  public void orphanListingsWithAnotherTablesMetadataAreRefused() {
    FileSystemTableOperations outer = create("outer", "file://" + outside.resolve("outer"));
    FileSystemTableOperations inner = create("inner", null);
    String nested = "file://" + outside.resolve("outer/nested/metadata/v3.metadata.json");
    TableMetadataParser.write(inner.current(), io.newOutputFile(nested));
    CatalogException e = assertThrows(CatalogException.class, () -> TableLocations.checkNoForeignMetadata(io,
        outer.current(), outer.metadataRoot(), List.of(nested), "db.outer", "remove orphan files of"));
    assertTrue(e.getMessage(), e.getMessage().contains(nested));
    assertTrue(e.getMessage(), e.getMessage().contains(inner.current().uuid()));
  }
}
