package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.InputFile;
import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A commit keeps the metadata it wrote instead of reading it back, a load of an unchanged version
 * reuses the parse, and neither ever hides a newer or a changed version file.
 */
public class TestTableLoadReuse {
  private static final TableIdentifier T = TableIdentifier.of(List.of("db"), "t");

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /** Local IO that records which metadata files are opened and which folders are listed. */
  static final class CountingFileIO extends ForwardingFileIO {
    final List<String> metadataReads = Collections.synchronizedList(new ArrayList<>());
    final List<String> listings = Collections.synchronizedList(new ArrayList<>());
    volatile boolean failAfterPublish = false;

    CountingFileIO() {
      super(new LocalFileIO());
    }

    @Override
    public InputFile newInputFile(String location) {
      if (location.endsWith(".metadata.json")) {
        metadataReads.add(location);
      }
      return super.newInputFile(location);
    }

    @Override
    public List<String> listFileNames(String directory) throws IOException {
      listings.add(directory);
      return super.listFileNames(directory);
    }

    @Override
    public void publishIfAbsent(String source, String target) throws IOException {
      super.publishIfAbsent(source, target);
      if (failAfterPublish) {
        failAfterPublish = false;
        throw new IOException("connection reset after publish (injected)");
      }
    }
  }

  private Path metadataDir() {
    return temp.getRoot().toPath().resolve("db/t/metadata");
  }

  private static void append(FileSystemTableOperations ops) {
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
  }

  @Test
  public void commitDoesNotReadBackTheFileItWrote() throws IOException {
    CountingFileIO io = new CountingFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    TableMetadata updated = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 1)).apply(base);
    io.metadataReads.clear();

    ops.commit(base, updated);

    assertEquals("no metadata.json is opened by a clean commit", List.of(), io.metadataReads);
    TableMetadata current = ops.current();
    assertEquals(2, ops.currentVersion());
    assertTrue(current.metadataFileLocation().endsWith("/db/t/metadata/v2.metadata.json"));
    assertEquals("the kept metadata is what the file holds",
        Files.readString(metadataDir().resolve("v2.metadata.json")), TableMetadataParser.toJson(current));
    assertEquals(base.metadataFileLocation(), current.previousFiles().get(0).file());
    assertEquals(updated.currentSnapshot(), current.currentSnapshot());
  }

  @Test
  public void ambiguousPublishStillReadsBackTheCommitId() {
    CountingFileIO io = new CountingFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    TableMetadata updated = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 1)).apply(base);
    io.metadataReads.clear();
    io.failAfterPublish = true;

    ops.commit(base, updated);

    assertTrue("the published file is read back: " + io.metadataReads,
        io.metadataReads.stream().anyMatch(l -> l.endsWith("/v2.metadata.json")));
    assertEquals(2, ops.currentVersion());
    assertTrue(ops.current().commitId() != null);
  }

  @Test
  public void loadingAnUnchangedVersionParsesOnce() {
    CountingFileIO io = new CountingFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    append(CommitFixtures.create(catalog, "t", Map.of()));
    long parses = catalog.metadataCache().parses();

    TableMetadata first = catalog.loadTable(T).current();
    TableMetadata second = catalog.loadTable(T).current();

    assertSame("an unchanged version file is not parsed again", first, second);
    assertEquals("the version this catalog committed is not parsed at all", parses, catalog.metadataCache().parses());
    assertEquals(2, catalog.loadTable(T).currentVersion());
  }

  @Test
  public void aVersionCommittedElsewhereIsAlwaysSeen() {
    Path dir = temp.getRoot().toPath();
    FileSystemCatalog mine = CommitFixtures.catalog(dir);
    FileSystemCatalog theirs = CommitFixtures.catalog(dir);
    CommitFixtures.create(mine, "t", Map.of());
    FileSystemTableOperations held = mine.loadTable(T);
    for (int i = 1; i <= 4; i++) {
      FileSystemCatalog writer = i % 2 == 0 ? mine : theirs;
      append(writer.loadTable(T));
      for (FileSystemCatalog reader : List.of(mine, theirs)) {
        FileSystemTableOperations loaded = reader.loadTable(T);
        assertEquals(i + 1, loaded.currentVersion());
        assertEquals(i, loaded.current().snapshots().size());
      }
      assertEquals("an open table refreshes to the newest version", i, held.refresh().snapshots().size());
    }
  }

  @Test
  public void aVersionFileRewrittenInPlaceIsParsedAgain() throws IOException {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    append(CommitFixtures.create(catalog, "t", Map.of()));
    TableMetadata loaded = catalog.loadTable(T).current();
    TableMetadata edited = TableMetadata.buildFrom(loaded).setProperties(Map.of("edited", "yes")).build();
    Files.writeString(metadataDir().resolve("v2.metadata.json"), TableMetadataParser.toJson(edited));

    TableMetadata reloaded = catalog.loadTable(T).current();

    assertNotSame(loaded, reloaded);
    assertEquals("yes", reloaded.properties().get("edited"));
  }

  @Test
  public void aDroppedAndRecreatedTableIsNotServedFromTheCache() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    append(CommitFixtures.create(catalog, "t", Map.of()));
    catalog.loadTable(T);
    assertTrue(catalog.dropTable(T, false));
    FileSystemTableOperations recreated = CommitFixtures.create(catalog, "t", Map.of("second", "true"));
    append(recreated);

    TableMetadata loaded = catalog.loadTable(T).current();

    assertEquals("true", loaded.properties().get("second"));
    assertEquals(1, loaded.snapshots().size());
  }

  @Test
  public void loadingAndCheckingATableDoNotListItsMetadata() throws IOException {
    CountingFileIO io = new CountingFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    append(CommitFixtures.create(catalog, "t", Map.of()));
    io.listings.clear();

    catalog.loadTable(T);
    assertTrue(catalog.tableExists(T));
    assertTrue(catalog.namespaceExists(List.of("db")));
    assertFalse(catalog.tableExists(TableIdentifier.of(List.of("db"), "missing")));

    assertEquals("the version hint settles it", List.of(), io.listings);
    Files.delete(metadataDir().resolve("version-hint.text"));
    assertTrue("without a hint, listing still finds the table", catalog.tableExists(T));
    assertEquals(2, catalog.loadTable(T).currentVersion());
  }
}
