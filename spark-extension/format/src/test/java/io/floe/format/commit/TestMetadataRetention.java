package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.metadata.MetadataLogEntry;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestMetadataRetention {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations table(Map<String, String> props) {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    return CommitFixtures.create(catalog, "t", props);
  }

  private static void appendMany(FileSystemTableOperations ops, int count) {
    for (int i = 0; i < count; i++) {
      new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "r" + i, 1)).commit();
    }
  }

  private Set<String> versionFiles() {
    File dir = new File(temp.getRoot(), "db/t/metadata");
    return Arrays.stream(dir.list()).filter(n -> n.matches("v\\d+\\.metadata\\.json")).collect(Collectors.toSet());
  }

  @Test
  public void oldMetadataFilesOutsideTheLogAreDeletedWhenEnabled() {
    FileSystemTableOperations ops = table(Map.of(
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "2"));
    appendMany(ops, 5); // v1 (create) .. v6
    TableMetadata now = ops.refresh();
    List<MetadataLogEntry> log = now.previousFiles();
    assertEquals(2, log.size());
    assertEquals(Set.of("v4.metadata.json", "v5.metadata.json", "v6.metadata.json"), versionFiles());
    for (MetadataLogEntry e : log) {
      assertTrue("logged file is kept: " + e.file(), e.file().endsWith("v4.metadata.json")
          || e.file().endsWith("v5.metadata.json"));
    }
  }

  @Test
  public void oldVersionsAreKeptWhileTheHintIsStale() {
    // the hint cannot be replaced, and deleting v1 fails: with deletions going on regardless, v1
    // (named by the stale hint) would survive next to a deleted v2, and a reader probing forward
    // from the hint would load v1 and lose every later commit
    java.util.concurrent.atomic.AtomicBoolean hintsFail = new java.util.concurrent.atomic.AtomicBoolean();
    io.floe.format.io.ForwardingFileIO flaky = new io.floe.format.io.ForwardingFileIO(new io.floe.format.io.LocalFileIO()) {
      @Override
      public void replace(String source, String target) throws java.io.IOException {
        if (hintsFail.get()) {
          throw new java.io.IOException("hint replace failed (injected)");
        }
        super.replace(source, target);
      }

      @Override
      public boolean deleteFile(String location) throws java.io.IOException {
        if (location.endsWith("/v1.metadata.json")) {
          throw new java.io.IOException("delete failed (injected)");
        }
        return super.deleteFile(location);
      }
    };
    FileSystemCatalog catalog = CommitFixtures.catalog(flaky, temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of(
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1"));
    hintsFail.set(true);
    appendMany(ops, 4); // v2 .. v5, the hint still names v1
    FileSystemTableOperations reader = CommitFixtures.catalog(temp.getRoot().toPath())
        .loadTable(io.floe.format.catalog.TableIdentifier.of(java.util.List.of("db"), "t"));
    assertEquals(4, reader.refresh().snapshots().size());
    assertEquals(5, reader.currentVersion());
  }

  @Test
  public void nothingIsDeletedByDefault() {
    FileSystemTableOperations ops = table(Map.of(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "2"));
    appendMany(ops, 4);
    assertEquals(5, versionFiles().size());
    assertEquals(2, ops.refresh().previousFiles().size());
  }

  @Test
  public void aLoggedFileOutsideTheMetadataFolderIsNeverDeleted() throws Exception {
    FileSystemTableOperations ops = table(Map.of(
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1"));
    File outside = temp.newFile("elsewhere.metadata.json");
    TableMetadata base = ops.refresh();
    TableMetadata hostile = TableMetadata.buildFrom(base.withMetadataFileLocation("file:" + outside.getAbsolutePath()))
        .build();
    ops.commit(base, hostile); // logs the outside file as the previous version
    appendMany(ops, 2); // drops it from the log
    assertTrue("a file outside the table's metadata folder stays", outside.exists());
    assertFalse(ops.refresh().previousFiles().stream().anyMatch(e -> e.file().contains("elsewhere")));
  }
}
