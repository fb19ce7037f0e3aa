package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.ForwardingTableOperations;
import io.floe.format.commit.RacingTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.commit.CommitFailedException;
import java.io.File;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Index list changes commit as metadata-only commits, re-applied to the newest list after a lost race. */
public class TestIndexListCommit {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations table() {
    return IndexFixtures.newTable(temp.getRoot());
  }

  private static IndexListCommit.Change adding(String name) {
    return (current, base) -> {
      if (current.index(name) != null) {
        throw IndexErrors.indexExists("db.t", name);
      }
      return IndexList.buildFrom(current).add(TableIndex.builder(name, IndexType.INVERTED, 1).build()).build();
    };
  }

  private static void appendOneFile(TableOperations ops) {
    TableMetadata base = ops.refresh();
    DataFile file = DataFile.builder(base.spec()).withPath(base.location() + "/data/f.parquet")
        .withFormat(FileFormat.PARQUET).withRecordCount(1).withFileSizeInBytes(10)
        .withMetrics(Metrics.empty(1)).build();
    new AppendFiles(ops).appendFile(file).commit();
  }

  @Test
  public void commitsANewListWithoutASnapshot() {
    FileSystemTableOperations ops = table();
    IndexList list = IndexListCommit.commit(ops, "db.t", adding("a"));
    TableMetadata after = ops.refresh();
    assertNull(after.currentSnapshot());
    assertEquals(list, IndexListFiles.read(ops.io(), "db.t", after.properties()));
    assertTrue(after.properties().get(TableProperties.INDEXES).contains("/metadata/_floe_indexes/index-list-"));
  }

  @Test
  public void dataCommitThatWinsTheRaceKeepsItsSnapshotAndTheIndexIsAdded() {
    FileSystemTableOperations ops = table();
    TableOperations racing = RacingTableOperations.racing(ops, () -> appendOneFile(ops));
    IndexListCommit.commit(racing, "db.t", adding("a"));
    TableMetadata after = ops.refresh();
    assertNotNull(after.currentSnapshot());
    assertNotNull(IndexListFiles.read(ops.io(), "db.t", after.properties()).index("a"));
    File folder = new File(temp.getRoot(), "db/t/metadata/_floe_indexes");
    assertEquals(1, folder.list().length); // the lost attempt's list file is gone
  }

  @Test
  public void secondBuildOfTheSameNameFailsOnRetryAndKeepsTheFirst() {
    FileSystemTableOperations ops = table();
    TableOperations racing = RacingTableOperations.racing(ops,
        () -> IndexListCommit.commit(ops, "db.t", adding("a")));
    IndexException e = assertThrows(IndexException.class, () -> IndexListCommit.commit(racing, "db.t", adding("a")));
    assertTrue(e.getMessage(), e.getMessage().contains("index of that name exists"));
    assertEquals(1, IndexListFiles.read(ops.io(), "db.t", ops.refresh().properties()).indexes().size());
  }

  /** Table operations where an append wins the race against each of the first {@code races} commits. */
  private static TableOperations losingRaces(TableOperations ops, int races) {
    return new ForwardingTableOperations(ops) {
      private int left = races;

      @Override
      public void commit(TableMetadata base, TableMetadata updated) {
        if (left > 0) {
          left -= 1;
          appendOneFile(ops);
        }
        super.commit(base, updated);
      }
    };
  }

  private static void setRetries(TableOperations ops, int retries) {
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of(
        TableProperties.COMMIT_NUM_RETRIES, Integer.toString(retries),
        TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "1", TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "5")).build());
  }

  @Test
  public void buildRacingManyAppendsRetriesAsTheTableAllows() {
    FileSystemTableOperations ops = table();
    setRetries(ops, 10);
    IndexListCommit.commit(losingRaces(ops, 8), "db.t", adding("a"));
    TableMetadata after = ops.refresh();
    assertEquals(8, after.snapshots().size()); // every append committed, none lost
    assertNotNull(IndexListFiles.read(ops.io(), "db.t", after.properties()).index("a"));
    File folder = new File(temp.getRoot(), "db/t/metadata/_floe_indexes");
    assertEquals(1, folder.list().length); // the lost attempts' list files are gone
  }

  @Test
  public void buildThatLosesMoreRacesThanTheTableAllowsFailsNamingTheProperty() {
    FileSystemTableOperations ops = table();
    setRetries(ops, 2);
    CommitFailedException e = assertThrows(CommitFailedException.class,
        () -> IndexListCommit.commit(losingRaces(ops, 3), "db.t", adding("a")));
    assertTrue(e.getMessage(), e.getMessage().contains("Cannot change the indexes of table db.t")
        && e.getMessage().contains("3 attempts") && e.getMessage().contains("commit.retry.num-retries"));
    TableMetadata after = ops.refresh();
    assertEquals(3, after.snapshots().size());
    assertNull(after.properties().get(TableProperties.INDEXES));
    File folder = new File(temp.getRoot(), "db/t/metadata/_floe_indexes");
    assertTrue(!folder.exists() || folder.list().length == 0);
  }
}
