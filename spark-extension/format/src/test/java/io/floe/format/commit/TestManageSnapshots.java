package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeException;
import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotLogEntry;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestManageSnapshots {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemCatalog catalog;

  private FileSystemTableOperations table() {
    catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    return CommitFixtures.create(catalog, "t", Map.of());
  }

  private static long append(FileSystemTableOperations ops, String region) {
    TableMetadata base = ops.refresh();
    return new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, region, 1)).commit().snapshotId();
  }

  /** Commits a snapshot without moving main (as write-audit-publish stages one); returns its id. */
  private static long stage(FileSystemTableOperations ops, SnapshotProducer producer) {
    TableMetadata base = ops.refresh();
    TableMetadata applied = producer.apply(base);
    Snapshot staged = applied.snapshot(producer.snapshotId());
    ops.commit(base, TableMetadata.buildFrom(base).addSnapshot(staged).build());
    return staged.snapshotId();
  }

  private static Set<String> liveRegions(FileSystemTableOperations ops) {
    Set<String> regions = new HashSet<>();
    for (FileScanTask t : TableScan.of(ops.io(), ops.refresh()).planFiles().tasks()) {
      assertTrue("region listed twice", regions.add(String.valueOf(t.file().partition().get(0))));
    }
    return regions;
  }

  private static void expectError(Runnable action, String... fragments) {
    try {
      action.run();
      fail("expected a refusal mentioning " + List.of(fragments));
    } catch (IllegalArgumentException | FloeException e) {
      for (String f : fragments) {
        assertTrue(e.getMessage() + " should mention " + f, e.getMessage().contains(f));
      }
    }
  }

  @Test
  public void rollbackMovesMainToAnAncestorAndLogsIt() {
    FileSystemTableOperations ops = table();
    long first = append(ops, "eu");
    long second = append(ops, "us");
    TableMetadata base = ops.refresh();
    TableMetadata rolledBack = ManageSnapshots.rollbackTo(base, first, "db.t");
    ops.commit(base, rolledBack);
    TableMetadata now = ops.refresh();
    assertEquals(first, now.currentSnapshot().snapshotId());
    assertEquals(first, now.ref(SnapshotRef.MAIN_BRANCH).snapshotId());
    List<SnapshotLogEntry> log = now.snapshotLog();
    assertEquals(first, log.get(log.size() - 1).snapshotId());
    assertEquals(Set.of("eu"), liveRegions(ops));
    assertTrue("the rolled-back snapshot stays in the metadata", now.snapshot(second) != null);
    assertSame("rolling back to the current snapshot changes nothing", now,
        ManageSnapshots.rollbackTo(now, first, "db.t"));
  }

  @Test
  public void rollbackRefusesNonAncestorsAndUnknownIdsListingSnapshots() {
    FileSystemTableOperations ops = table();
    long first = append(ops, "eu");
    long second = append(ops, "us");
    ops.commit(ops.refresh(), ManageSnapshots.rollbackTo(ops.refresh(), first, "db.t"));
    TableMetadata base = ops.refresh();
    expectError(() -> ManageSnapshots.rollbackTo(base, second, "db.t"), "db.t", Long.toString(second),
        "not an ancestor");
    expectError(() -> ManageSnapshots.rollbackTo(base, 42L, "db.t"), "db.t", "snapshot 42 does not exist",
        Long.toString(first), Long.toString(second), "branch main -> " + first);
  }

  @Test
  public void setCurrentSnapshotUndoesARollbackAndFollowsRefs() {
    FileSystemTableOperations ops = table();
    long first = append(ops, "eu");
    long second = append(ops, "us");
    ops.commit(ops.refresh(), ManageSnapshots.rollbackTo(ops.refresh(), first, "db.t"));
    ops.commit(ops.refresh(), ManageSnapshots.setCurrentSnapshot(ops.refresh(), second, "db.t"));
    assertEquals(second, ops.refresh().currentSnapshot().snapshotId());
    assertEquals(Set.of("eu", "us"), liveRegions(ops));

    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setRef("v1", SnapshotRef.tag(first)).build());
    ops.commit(ops.refresh(), ManageSnapshots.setCurrentToRef(ops.refresh(), "v1", "db.t"));
    assertEquals(first, ops.refresh().currentSnapshot().snapshotId());
    expectError(() -> ManageSnapshots.setCurrentToRef(ops.refresh(), "nope", "db.t"), "db.t", "nope", "v1");
  }

  @Test
  public void rollbackToTimeChoosesTheNewestStrictlyOlderAncestor() throws InterruptedException {
    FileSystemTableOperations ops = table();
    long first = append(ops, "eu");
    Thread.sleep(5);
    long second = append(ops, "us");
    TableMetadata base = ops.refresh();
    long secondTime = base.snapshot(second).timestampMillis();
    ops.commit(base, ManageSnapshots.rollbackToTime(base, secondTime, "db.t"));
    assertEquals(first, ops.refresh().currentSnapshot().snapshotId());
    long firstTime = ops.refresh().snapshot(first).timestampMillis();
    expectError(() -> ManageSnapshots.rollbackToTime(ops.refresh(), firstTime, "db.t"), "db.t",
        "no ancestor", Long.toString(first));
  }

  @Test
  public void ancestorsStopAtAMissingParent() {
    FileSystemTableOperations ops = table();
    long first = append(ops, "eu");
    long second = append(ops, "us");
    long third = append(ops, "jp");
    TableMetadata base = ops.refresh();
    assertEquals(List.of(third, second, first),
        ManageSnapshots.ancestors(base, third).stream().map(Snapshot::snapshotId).toList());
    TableMetadata expired = TableMetadata.buildFrom(base).removeSnapshots(List.of(first)).build();
    assertEquals(List.of(third, second),
        ManageSnapshots.ancestors(expired, third).stream().map(Snapshot::snapshotId).toList());
    assertTrue(ManageSnapshots.ancestors(expired, 7L).isEmpty());
  }

  @Test
  public void cherrypickFastForwardsWhenTheParentIsCurrent() {
    FileSystemTableOperations ops = table();
    append(ops, "eu");
    long staged = stage(ops, new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 2)));
    assertEquals(Set.of("eu"), liveRegions(ops));
    Snapshot published = new Cherrypick(ops).apply(staged);
    assertEquals(staged, published.snapshotId());
    assertEquals(Set.of("eu", "us"), liveRegions(ops));
    expectError(() -> new Cherrypick(ops).apply(staged), "db.t", Long.toString(staged), "already an ancestor");
  }

  @Test
  public void cherrypickReappliesAnAppendOnTopOfNewerCommits() {
    FileSystemTableOperations ops = table();
    append(ops, "eu");
    AppendFiles staging = new AppendFiles(ops);
    staging.appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 2)).set(Cherrypick.WAP_ID, "w1");
    long staged = stage(ops, staging);
    append(ops, "jp");
    Snapshot published = new Cherrypick(ops).apply(staged);
    assertNotEquals(staged, published.snapshotId());
    assertEquals(Long.toString(staged), published.summary().get(Cherrypick.SOURCE_SNAPSHOT_ID));
    assertEquals("w1", published.summary().get(Cherrypick.PUBLISHED_WAP_ID));
    assertEquals(Set.of("eu", "us", "jp"), liveRegions(ops));
    expectError(() -> new Cherrypick(ops).apply(staged), "db.t", "already published as snapshot "
        + published.snapshotId());
  }

  @Test
  public void cherrypickReappliesAPartitionReplacingOverwrite() {
    FileSystemTableOperations ops = table();
    append(ops, "eu");
    OverwriteFiles staging = new OverwriteFiles(ops).replaceAddedPartitions();
    staging.addFile(CommitFixtures.dataFile(ops.refresh(), "eu", 5));
    long staged = stage(ops, staging);
    append(ops, "us");
    new Cherrypick(ops).apply(staged);
    TableMetadata now = ops.refresh();
    long euFiles = TableScan.of(ops.io(), now).planFiles().tasks().stream()
        .filter(t -> "eu".equals(String.valueOf(t.file().partition().get(0)))).count();
    assertEquals("the eu partition was replaced, not appended to", 1, euFiles);
    assertEquals(Set.of("eu", "us"), liveRegions(ops));
  }

  @Test
  public void cherrypickRefusesADeleteThatCannotFastForward() {
    FileSystemTableOperations ops = table();
    append(ops, "eu");
    append(ops, "us");
    OverwriteFiles staging = new OverwriteFiles(ops).overwriteByRowFilter(
        io.floe.format.expr.Expressions.equal("region", "eu"));
    long staged = stage(ops, staging);
    append(ops, "jp");
    expectError(() -> new Cherrypick(ops).apply(staged), "db.t", Long.toString(staged), "delete");
  }

  @Test
  public void registerTablePublishesExistingMetadataUnderTheNewName() {
    FileSystemTableOperations ops = table();
    append(ops, "eu");
    TableMetadata source = ops.refresh();
    TableIdentifier copy = TableIdentifier.of(List.of("db"), "copy");
    FileSystemTableOperations registered = catalog.registerTable(copy, source.metadataFileLocation());
    TableMetadata loaded = catalog.loadTable(copy).refresh();
    assertEquals(source.currentSnapshot().snapshotId(), loaded.currentSnapshot().snapshotId());
    assertEquals("data stays where it is", source.location(), loaded.location());
    assertEquals(Set.of("eu"), liveRegions(registered));
    try {
      catalog.registerTable(copy, source.metadataFileLocation());
      fail("registering an existing table must fail");
    } catch (io.floe.format.catalog.CatalogException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("db.copy"));
    }
    expectError(() -> catalog.registerTable(TableIdentifier.of(List.of("db"), "other"),
        source.location() + "/metadata/missing.metadata.json"), "db.other", "missing.metadata.json");
  }
}
