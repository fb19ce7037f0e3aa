package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.TableMetadata;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Commits on a store that publishes with a conditional create (an object store's put-if-absent), as
 * HadoopFileIO does on S3A: modelled here by a local FileIO whose {@code createIfAbsent} is an
 * exclusive create and whose rename-based publish must never be used. Faults are injected into it.
 */
public class TestConditionalCreateCommits {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /** Conditional creates by CREATE_NEW; counts them; can be told to fail the next one. */
  static final class ConditionalIO extends ForwardingFileIO {
    final List<String> created = new ArrayList<>();
    /** Write the file, then answer "already exists" (a store retry that met our own object). */
    boolean nextLandsThenConflicts;
    /** Write nothing and fail with an error that says nothing of the outcome. */
    boolean nextFailsAmbiguously;

    ConditionalIO() {
      super(new LocalFileIO());
    }

    @Override
    public boolean createsIfAbsent(String location) {
      return true;
    }

    @Override
    public void createIfAbsent(String location, byte[] content) throws IOException {
      created.add(location);
      if (nextFailsAmbiguously) {
        nextFailsAmbiguously = false;
        throw new IOException("connection reset");
      }
      try (OutputStream out = newOutputFile(location).create()) {
        out.write(content);
      }
      if (nextLandsThenConflicts) {
        nextLandsThenConflicts = false;
        throw new FileAlreadyExistsException(location);
      }
    }

    @Override
    public void publishIfAbsent(String source, String target) {
      throw new AssertionError("an object store commit must not rename " + source + " to " + target);
    }

    @Override
    public boolean renamesDirectoriesAtomically(String location) {
      return false;
    }
  }

  private FileSystemCatalog catalog(ConditionalIO io) {
    return CommitFixtures.catalog(io, temp.getRoot().toPath());
  }

  private List<String> metadataFiles(FileSystemTableOperations ops) throws IOException {
    Path dir = Paths.get(java.net.URI.create(ops.metadataRoot() + "/metadata"));
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  public void commitsPublishByConditionalCreateWithoutTemporaryFiles() throws IOException {
    ConditionalIO io = new ConditionalIO();
    FileSystemTableOperations ops = CommitFixtures.create(catalog(io), "t", Map.of());
    TableMetadata base = ops.current();
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 10)).commit();
    assertEquals(2, ops.currentVersion());
    assertTrue(io.created.toString(), io.created.get(io.created.size() - 1).endsWith("/metadata/v2.metadata.json"));
    assertTrue(metadataFiles(ops).toString(), metadataFiles(ops).stream().noneMatch(n -> n.contains(".tmp")));
  }

  @Test
  public void aStaleWriterLosesToTheConditionalCreateAndRetries() {
    ConditionalIO io = new ConditionalIO();
    FileSystemCatalog catalog = catalog(io);
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    FileSystemTableOperations other = catalog.loadTable(TableIdentifier.of(List.of("db"), "t"));
    TableMetadata base = ops.current();
    new AppendFiles(other).appendFile(CommitFixtures.dataFile(base, "us", 5)).commit();
    // ops still holds v1 as current: its commit skips the refresh and the create of v2 must fail
    TableMetadata mine = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 10)).apply(base);
    try {
      ops.commit(base, mine);
      fail("the create of v2 must lose to the other writer's v2");
    } catch (CommitFailedException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("published by another writer"));
    }
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 10)).commit();
    assertEquals(3, ops.currentVersion());
    assertEquals(2, ops.current().snapshots().size());
  }

  @Test
  public void alreadyExistsForOurOwnRetriedWriteIsASuccess() {
    ConditionalIO io = new ConditionalIO();
    FileSystemTableOperations ops = CommitFixtures.create(catalog(io), "t", Map.of());
    TableMetadata base = ops.current();
    io.nextLandsThenConflicts = true;
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 10)).commit();
    assertEquals(2, ops.currentVersion());
    assertEquals(1, ops.refresh().snapshots().size());
  }

  @Test
  public void anAmbiguousErrorWithNothingPublishedIsAnUnknownOutcome() {
    ConditionalIO io = new ConditionalIO();
    FileSystemTableOperations ops = CommitFixtures.create(catalog(io), "t", Map.of());
    TableMetadata base = ops.current();
    TableMetadata mine = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 10)).apply(base);
    io.nextFailsAmbiguously = true;
    try {
      ops.commit(base, mine);
      fail("a failed conditional write may still land: the outcome is unknown");
    } catch (CommitStateUnknownException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("db.t"));
    }
    assertEquals(1, ops.refresh() == null ? -1 : ops.currentVersion());
  }

  @Test
  public void renameIsRefusedWhereDirectoriesDoNotMoveAtomically() {
    ConditionalIO io = new ConditionalIO();
    FileSystemCatalog catalog = catalog(io);
    CommitFixtures.create(catalog, "t", Map.of());
    TableIdentifier from = TableIdentifier.of(List.of("db"), "t");
    TableIdentifier to = TableIdentifier.of(List.of("db"), "u");
    try {
      catalog.renameTable(from, to);
      fail("rename must be refused on an object store");
    } catch (CatalogException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("object store"));
    }
    assertTrue(catalog.tableExists(from));
    assertFalse(catalog.tableExists(to));
  }
}
