package io.floe.format.commit;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A producer whose result its caller publishes (a staged REPLACE TABLE AS SELECT re-applies it to
 * the refreshed table after a lost race) removes what its lost attempts wrote, as
 * {@link SnapshotProducer#commit} does. Found by the R2 conflict matrix: each lost race of a
 * REPLACE TABLE left its manifest list behind.
 */
public class TestCallerPublishedCommits {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void aReplaceThatLostARaceLeavesOnlyTheCommittedManifestList() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata first = ops.refresh();
    TableMetadata fresh = TableMetadata.newTableMetadata(CommitFixtures.SCHEMA,
        PartitionSpec.builderFor(CommitFixtures.SCHEMA).identity("region").build(), SortOrder.unsorted(),
        first.location(), Map.of(), 2);
    AppendFiles pending = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(first, "eu", 4));
    TableMetadata lost = pending.apply(TableReplacement.replace(first, fresh));
    new AppendFiles(catalog.loadTable(TableIdentifier.of(List.of("db"), "t")))
        .appendFile(CommitFixtures.dataFile(first, "us", 2)).commit();
    assertThrows(CommitFailedException.class, () -> ops.commit(first, lost));

    TableMetadata current = ops.refresh();
    TableMetadata updated = pending.apply(TableReplacement.replace(current, fresh));
    ops.commit(current, updated);
    pending.cleanUpUncommitted(updated);

    String lostList = lost.currentSnapshot().manifestListLocation();
    String list = ops.refresh().currentSnapshot().manifestListLocation();
    assertFalse("the lost attempt's manifest list is an orphan", Files.exists(LocalFileIO.toPath(lostList)));
    assertTrue(Files.exists(LocalFileIO.toPath(list)));
    ManifestLists.read(ops.io().newInputFile(list))
        .forEach(m -> assertTrue(m.path(), Files.exists(LocalFileIO.toPath(m.path()))));
  }

  @Test
  public void aKnownFailureRemovesEveryMetadataFileTheProducerWrote() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    AppendFiles pending = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 4));
    TableMetadata updated = pending.apply(base);
    String list = updated.currentSnapshot().manifestListLocation();
    String manifest = ManifestLists.read(ops.io().newInputFile(list)).get(0).path();
    pending.cleanUpAfterFailure();
    assertFalse(Files.exists(LocalFileIO.toPath(list)));
    assertFalse(Files.exists(LocalFileIO.toPath(manifest)));
  }
}
