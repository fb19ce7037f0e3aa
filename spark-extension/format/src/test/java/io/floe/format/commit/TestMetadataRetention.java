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
