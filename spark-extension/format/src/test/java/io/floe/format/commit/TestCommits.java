package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestCommits {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static Set<String> livePaths(FileSystemTableOperations ops) {
    Set<String> paths = new HashSet<>();
    for (FileScanTask t : TableScan.of(ops.io(), ops.refresh()).planFiles().tasks()) {
      assertTrue("file listed twice: " + t.file().path(), paths.add(t.file().path()));
    }
    return paths;
  }

  @Test
  public void twoWritersFromTheSameBaseExactlyOneWins() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    FileSystemTableOperations other = catalog.newTableOps(io.floe.format.catalog.TableIdentifier.of(List.of("db"), "t"));
    other.refresh();

    TableMetadata first = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 10)).apply(base);
    TableMetadata second = new AppendFiles(other).appendFile(CommitFixtures.dataFile(base, "us", 5)).apply(base);
    ops.commit(base, first);
    try {
      other.commit(base, second);
      fail("the second commit from the same base must lose");
    } catch (CommitFailedException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("db.t"));
    }
    assertEquals(2, ops.currentVersion());
    assertEquals(1, ops.refresh().snapshots().size());
  }

  @Test
  public void concurrentAppendsAllLandThroughRetries() throws Exception {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations created = CommitFixtures.create(catalog, "t", Map.of(
        "commit.retry.num-retries", "50", "commit.retry.min-wait-ms", "1", "commit.retry.max-wait-ms", "20"));
    int threads = 4;
    int commitsPerThread = 10;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<String> acked = Collections.synchronizedList(new ArrayList<>());
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        FileSystemTableOperations ops = catalog.loadTable(io.floe.format.catalog.TableIdentifier.of(List.of("db"), "t"));
        for (int i = 0; i < commitsPerThread; i++) {
          DataFile f = CommitFixtures.dataFile(ops.refresh(), "eu", 1);
          new AppendFiles(ops).appendFile(f).commit();
          acked.add(f.path());
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    Set<String> live = livePaths(created);
    assertEquals(threads * commitsPerThread, live.size());
    assertTrue(live.containsAll(acked));
    TableMetadata current = created.refresh();
    assertEquals(Long.toString(threads * commitsPerThread), current.currentSnapshot().summary().get("total-records"));
    assertEquals(threads * commitsPerThread + 1, created.currentVersion());
  }

  @Test
  public void addingTheSameFileConcurrentlyFailsTheLaterCommitAndOtherAppendsPass() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    DataFile first = CommitFixtures.dataFile(ops.refresh(), "eu", 10);
    new AppendFiles(ops).appendFile(first).commit();
    long read = ops.refresh().currentSnapshot().snapshotId();
    DataFile shared = CommitFixtures.dataFile(ops.refresh(), "us", 5);
    DataFile other = CommitFixtures.dataFile(ops.refresh(), "us", 7);

    // both writers checked the table (snapshot `read`) before either committed
    new AppendFiles(ops).appendFile(shared).validateFromSnapshot(read).validateNoDuplicateAdds().commit();
    new AppendFiles(ops).appendFile(other).validateFromSnapshot(read).validateNoDuplicateAdds().commit();
    TableMetadata before = ops.refresh();
    ValidationException e = assertThrows(ValidationException.class, () -> new AppendFiles(ops)
        .appendFile(other).appendFile(shared).validateFromSnapshot(read).validateNoDuplicateAdds().commit());
    assertTrue(e.getMessage(), e.getMessage().contains(shared.path()) || e.getMessage().contains(other.path()));
    assertTrue(e.getMessage(), e.getMessage().contains("adds too"));
    assertEquals(before.currentSnapshot().snapshotId(), ops.refresh().currentSnapshot().snapshotId());
    assertEquals(Set.of(first.path(), shared.path(), other.path()), livePaths(ops));
    // the same file spelled as a URI is the same file
    String otherSpelling = shared.path().startsWith("file:") ? shared.path().substring("file:".length())
        : "file:" + shared.path();
    DataFile spelled = DataFile.builder(ops.refresh().spec()).copy(shared).withPath(otherSpelling).build();
    assertThrows(ValidationException.class, () -> new AppendFiles(ops).appendFile(spelled)
        .validateFromSnapshot(read).validateNoDuplicateAdds().commit());
    // without the check (a plain append) nothing is compared
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).validateFromSnapshot(read)
        .commit();
  }

  @Test
  public void overwriteReplacesPartitionAndKeepsOthers() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    DataFile eu = CommitFixtures.dataFile(ops.refresh(), "eu", 10);
    DataFile us = CommitFixtures.dataFile(ops.refresh(), "us", 20);
    new AppendFiles(ops).appendFile(eu).appendFile(us).commit();
    DataFile eu2 = CommitFixtures.dataFile(ops.refresh(), "eu", 3);
    Snapshot snap = new OverwriteFiles(ops).addFile(eu2).replaceAddedPartitions().commit();
    assertEquals("overwrite", snap.operation());
    assertEquals(Set.of(us.path(), eu2.path()), livePaths(ops));
    assertEquals("23", snap.summary().get("total-records"));
    assertEquals("1", snap.summary().get("deleted-data-files"));
  }

  @Test
  public void deletingAFileThatIsGoneFailsValidation() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    DataFile eu = CommitFixtures.dataFile(ops.refresh(), "eu", 10);
    new AppendFiles(ops).appendFile(eu).commit();
    new OverwriteFiles(ops).deleteFile(eu.path()).commit();
    try {
      new OverwriteFiles(ops).deleteFile(eu.path()).commit();
      fail("deleting a file that is no longer live must fail");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage().contains(eu.path()));
    }
  }

  @Test
  public void ambiguousPublishIsResolvedByReadingBack() throws IOException {
    Path dir = temp.getRoot().toPath();
    FailingFileIO io = new FailingFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, dir);
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    io.failAfterPublish = true;
    TableMetadata updated = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 1)).apply(base);
    ops.commit(base, updated);
    assertEquals("the commit landed although publishing reported an error", 2, ops.currentVersion());
    assertNotNull(ops.refresh().currentSnapshot());
  }

  @Test
  public void uncheckedErrorAfterPublishIsResolvedByReadingBack() throws IOException {
    FailingFileIO io = new FailingFileIO();
    FileSystemTableOperations ops = CommitFixtures.create(CommitFixtures.catalog(io, temp.getRoot().toPath()), "t",
        Map.of());
    AppendFiles append = new AppendFiles(ops);
    append.appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1));
    // a storage client that throws an unchecked exception although the version landed (R3 I/O faults)
    io.errorAfterPublish = new java.io.UncheckedIOException(new IOException("client gave up (injected)"));
    append.commit();
    TableMetadata current = ops.refresh();
    assertEquals(1, current.snapshots().size());
    assertTrue("the landed snapshot's manifest list must be kept",
        io.exists(current.currentSnapshot().manifestListLocation()));
  }

  @Test
  public void ownVersionReportedAsExistingIsNotCommittedTwice() throws IOException {
    FailingFileIO io = new FailingFileIO();
    FileSystemTableOperations ops = CommitFixtures.create(CommitFixtures.catalog(io, temp.getRoot().toPath()), "t",
        Map.of());
    AppendFiles append = new AppendFiles(ops);
    append.appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1));
    // a retried rename (HDFS) that finds the target its first, lost, attempt created
    io.errorAfterPublish = new java.nio.file.FileAlreadyExistsException("v2.metadata.json");
    append.commit();
    TableMetadata current = ops.refresh();
    assertEquals("the commit landed once, not again on top of itself", 1, current.snapshots().size());
    assertEquals(2, ops.currentVersion());
    assertTrue(io.exists(current.currentSnapshot().manifestListLocation()));
  }

  @Test
  public void unknownOutcomeKeepsEverything() throws IOException {
    Path dir = temp.getRoot().toPath();
    FailingFileIO io = new FailingFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, dir);
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    AppendFiles append = new AppendFiles(ops);
    append.appendFile(CommitFixtures.dataFile(base, "eu", 1));
    io.failAfterPublish = true;
    io.breakReadsAfterPublish = true;
    try {
      append.commit();
      fail("expected an unknown commit state");
    } catch (CommitStateUnknownException expected) {
      assertTrue(expected.getMessage().contains("may or may not"));
    }
    io.failReads = false;
    long manifests;
    try (var files = Files.list(dir.resolve("db/t/metadata"))) {
      manifests = files.filter(p -> p.toString().endsWith(".avro")).count();
    }
    assertTrue("manifest and manifest list must be kept", manifests >= 2);
    assertEquals(1, ops.refresh().snapshots().size());
  }

  @Test
  public void corruptMetadataNamesTheFile() throws IOException {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    CommitFixtures.create(catalog, "t", Map.of());
    Path v1 = temp.getRoot().toPath().resolve("db/t/metadata/v1.metadata.json");
    Files.writeString(v1, "{\"format-version\": 2, \"table-uuid\": ");
    try {
      catalog.loadTable(io.floe.format.catalog.TableIdentifier.of(List.of("db"), "t"));
      fail("corrupt metadata must fail to load");
    } catch (RuntimeException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("v1.metadata.json"));
    }
  }

  @Test
  public void lostCurrentVersionIsAnErrorNotAnOlderSnapshot() throws IOException {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
    Files.delete(temp.getRoot().toPath().resolve("db/t/metadata/v2.metadata.json"));
    try {
      catalog.newTableOps(io.floe.format.catalog.TableIdentifier.of(List.of("db"), "t")).refresh();
      fail("a missing current metadata file must not fall back to v1");
    } catch (RuntimeException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("v2.metadata.json is missing"));
    }
  }

  @Test
  public void staleVersionHintIsSelfHealing() throws IOException {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
    Path hint = temp.getRoot().toPath().resolve("db/t/metadata/version-hint.text");
    assertEquals("2", Files.readString(hint));
    Files.writeString(hint, "1");
    FileSystemTableOperations fresh = catalog.loadTable(io.floe.format.catalog.TableIdentifier.of(List.of("db"), "t"));
    assertEquals(2, fresh.currentVersion());
  }

  /** Local IO that can report a failure after a publish actually happened, and fail reads. */
  static final class FailingFileIO extends io.floe.format.io.ForwardingFileIO {
    volatile boolean failAfterPublish = false;
    volatile boolean failReads = false;
    volatile boolean breakReadsAfterPublish = false;
    /** Thrown once after the next publish landed (an IOException or an unchecked exception). */
    volatile Exception errorAfterPublish = null;

    FailingFileIO() {
      super(new LocalFileIO());
    }

    @Override
    public void publishIfAbsent(String source, String target) throws IOException {
      super.publishIfAbsent(source, target);
      Exception error = errorAfterPublish;
      if (error != null) {
        errorAfterPublish = null;
        if (error instanceof IOException io) {
          throw io;
        }
        throw (RuntimeException) error;
      }
      if (failAfterPublish) {
        failAfterPublish = false;
        failReads = breakReadsAfterPublish;
        throw new IOException("connection reset after publish (injected)");
      }
    }

    @Override
    public io.floe.format.io.InputFile newInputFile(String location) {
      if (failReads && location.endsWith(".metadata.json")) {
        return new io.floe.format.io.InputFile() {
          @Override
          public String location() {
            return location;
          }

          @Override
          public long length() {
            throw new java.io.UncheckedIOException(new IOException("injected read failure"));
          }

          @Override
          public boolean exists() {
            throw new java.io.UncheckedIOException(new IOException("injected read failure"));
          }

          @Override
          public java.io.InputStream newStream() throws IOException {
            throw new IOException("injected read failure");
          }
        };
      }
      return super.newInputFile(location);
    }

    @Override
    public boolean exists(String location) throws IOException {
      if (failReads && location.endsWith(".metadata.json")) {
        throw new IOException("injected read failure");
      }
      return super.exists(location);
    }
  }
}
