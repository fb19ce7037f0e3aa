package io.floe.format.maintenance;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.ForwardingTableOperations;
import io.floe.format.commit.RacingTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.TableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.SnapshotRefType;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Which snapshots expire (refs, retention settings, explicit ids) and the safety rules around the commit. */
public class TestExpireSnapshots {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private ExpireFixtures table;
  private final List<Snapshot> history = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();

  @Before
  public void fiveAppends() throws Exception {
    table = new ExpireFixtures(temp.getRoot().toPath(), "t", 2, new Random(7));
    for (int i = 0; i < 5; i++) {
      DataFile f = table.dataFile();
      touch(f.path());
      files.add(f);
      history.add(new AppendFiles(table.ops).appendFile(f).commit());
      ExpireFixtures.sleepAMillisecond();
    }
  }

  private static void touch(String location) throws Exception {
    File f = Paths.get(java.net.URI.create(location)).toFile();
    f.getParentFile().mkdirs();
    Files.write(f.toPath(), new byte[] {1});
  }

  private static boolean exists(String location) {
    return Paths.get(java.net.URI.create(location)).toFile().exists();
  }

  private long ts(int i) {
    return history.get(i).timestampMillis();
  }

  private ExpireSnapshots expire() {
    return new ExpireSnapshots(table.ops).now(ts(4) + 10);
  }

  private Set<Long> ids(TableMetadata m) {
    Set<Long> out = new TreeSet<>();
    m.snapshots().forEach(s -> out.add(s.snapshotId()));
    return out;
  }

  private Set<Long> ids(int... indexes) {
    Set<Long> out = new TreeSet<>();
    for (int i : indexes) {
      out.add(history.get(i).snapshotId());
    }
    return out;
  }

  private void setRef(String name, SnapshotRef ref) {
    TableMetadata base = table.current();
    table.ops.commit(base, TableMetadata.buildFrom(base).setRef(name, ref).build());
  }

  @Test
  public void olderThanExpiresOldAncestorsAndTrimsTheSnapshotLog() {
    ExpireSnapshots.Result result = expire().expireOlderThan(ts(3)).commit();
    assertEquals(ids(0, 1, 2), result.expiredSnapshotIds());
    TableMetadata m = table.current();
    assertEquals(ids(3, 4), ids(m));
    assertTrue(m.snapshotLog().stream().noneMatch(e -> ids(0, 1, 2).contains(e.snapshotId())));
    assertEquals(3, result.counts().manifestLists());
    assertEquals("appends remove no data file", 0, result.counts().dataFiles());
    assertFalse(exists(history.get(0).manifestListLocation()));
    assertTrue(exists(history.get(3).manifestListLocation()));
  }

  @Test
  public void retainLastKeepsThatManyAncestorsOfMain() {
    expire().expireOlderThan(ts(4) + 1).retainLast(2).commit();
    assertEquals(ids(3, 4), ids(table.current()));
  }

  @Test
  public void tablePropertiesGiveTheDefaults() {
    TableMetadata base = table.current();
    table.ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of(
        "history.expire.max-snapshot-age-ms", "0", "history.expire.min-snapshots-to-keep", "3")).build());
    expire().commit();
    assertEquals(ids(2, 3, 4), ids(table.current()));
  }

  @Test
  public void refHeadsAreKeptAndOldRefsAreDropped() {
    setRef("keep", SnapshotRef.tag(history.get(1).snapshotId()));
    setRef("old", SnapshotRef.builderFor(history.get(0).snapshotId(), SnapshotRefType.TAG).maxRefAgeMs(1L).build());
    setRef("b", SnapshotRef.builderFor(history.get(3).snapshotId(), SnapshotRefType.BRANCH)
        .minSnapshotsToKeep(3).build());
    expire().expireOlderThan(ts(4) + 1).commit();
    TableMetadata m = table.current();
    assertNull("a tag older than its max-ref-age-ms is dropped", m.ref("old"));
    assertNotNull(m.ref("keep"));
    // main keeps 4; branch b keeps 3, 2, 1 (its own min-snapshots-to-keep); tag keep holds 1; 0 goes
    assertEquals(ids(1, 2, 3, 4), ids(m));
  }

  @Test
  public void explicitSnapshotIdsExpireButNotRefHeads() {
    setRef("v1", SnapshotRef.tag(history.get(2).snapshotId()));
    try {
      expire().expireOlderThan(0).expireSnapshotId(history.get(2).snapshotId()).commit();
      fail("expiring a tagged snapshot must fail");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("[v1]") && e.getMessage().contains("db.t"));
    }
    expire().expireOlderThan(0).expireSnapshotId(history.get(1).snapshotId()).commit();
    assertEquals(ids(0, 2, 3, 4), ids(table.current()));
  }

  @Test
  public void gcDisabledTablesAreRefused() {
    TableMetadata base = table.current();
    table.ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of("gc.enabled", "false")).build());
    try {
      expire().expireOlderThan(ts(4)).commit();
      fail("gc.enabled=false must refuse");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("gc.enabled"));
    }
    assertEquals(5, table.current().snapshots().size());
  }

  @Test
  public void aFileOutsideTheTableLocationRefusesBeforeCommittingOrDeleting() throws Exception {
    File outside = temp.newFile("elsewhere.stats");
    TableMetadata base = table.current();
    table.ops.commit(base, TableMetadata.buildFrom(base).setStatistics(new StatisticsFile(history.get(0).snapshotId(),
        outside.toURI().toString(), 1, 1, null, List.of())).build());
    TableMetadata poisoned = table.current();
    try {
      expire().expireOlderThan(ts(3)).commit();
      fail("a statistics file outside the table must be refused");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("elsewhere.stats") && e.getMessage().contains("statistics"));
    }
    assertTrue(outside.exists());
    assertEquals(poisoned.metadataFileLocation(), table.current().metadataFileLocation());
    assertTrue(exists(history.get(0).manifestListLocation()));
  }

  @Test
  public void nothingIsDeletedAfterAnUnknownCommitOutcome() {
    TableOperations unknown = new ForwardingTableOperations(table.ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata updated) {
        throw new CommitStateUnknownException("storage timed out", null);
      }
    };
    try {
      new ExpireSnapshots(unknown).now(ts(4) + 10).expireOlderThan(ts(3)).commit();
      fail("unknown commit state must propagate");
    } catch (CommitStateUnknownException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("no file was deleted"));
    }
    for (Snapshot s : history) {
      assertTrue(exists(s.manifestListLocation()));
    }
  }

  @Test
  public void aConcurrentCommitIsKeptAndTheExpiryRecomputed() throws Exception {
    DataFile late = table.dataFile();
    touch(late.path());
    TableOperations racing =
        RacingTableOperations.racing(table.ops, () -> new AppendFiles(table.ops).appendFile(late).commit());
    new ExpireSnapshots(racing).now(ts(4) + 10).expireOlderThan(ts(3)).commit();
    TableMetadata m = table.current();
    assertEquals(3, m.snapshots().size());
    assertTrue(m.currentSnapshot().snapshotId() != history.get(4).snapshotId());
    assertTrue(exists(late.path()));
  }

  @Test
  public void eachPhaseIsReportedWithItsCounts() {
    new OverwriteFiles(table.ops).deleteFile(files.get(0).path()).addFile(table.dataFile()).commit();
    List<String> phases = new ArrayList<>();
    ExpireSnapshots.Result result = expire().now(System.currentTimeMillis() + 10)
        .expireOlderThan(System.currentTimeMillis() + 5).onPhase(phases::add).commit();
    long planned = result.plan().files().size();
    assertEquals(List.of(
        "planned 5 snapshots to expire, " + planned + " files to delete",
        "committed",
        "deleted " + planned + " of " + planned + " files (1 data, 0 position delete, 0 equality delete, "
            + result.counts().manifests() + " manifests, 5 manifest lists, 0 statistics; 0 failed)"), phases);
    assertEquals(planned, result.counts().deleted());

    phases.clear();
    expire().onPhase(phases::add).commit();
    assertEquals(List.of("planned 0 snapshots to expire: nothing to do"), phases);
  }

  @Test
  public void aRetriedExpiryReportsThePlanOfEachAttempt() throws Exception {
    DataFile late = table.dataFile();
    touch(late.path());
    TableOperations racing =
        RacingTableOperations.racing(table.ops, () -> new AppendFiles(table.ops).appendFile(late).commit());
    List<String> phases = new ArrayList<>();
    new ExpireSnapshots(racing).now(ts(4) + 10).expireOlderThan(ts(3)).onPhase(phases::add).commit();
    assertEquals(List.of("planned 3 snapshots to expire, 3 files to delete",
        "planned 3 snapshots to expire, 3 files to delete", "committed after 1 retries",
        "deleted 3 of 3 files (0 data, 0 position delete, 0 equality delete, 0 manifests, 3 manifest lists, "
            + "0 statistics; 0 failed)"), phases);
  }

  @Test
  public void overwrittenDataFilesAreDeletedOnceNoSnapshotReachesThem() {
    new OverwriteFiles(table.ops).deleteFile(files.get(0).path()).addFile(table.dataFile()).commit();
    ExpireSnapshots.Result result = expire().now(System.currentTimeMillis() + 10)
        .expireOlderThan(System.currentTimeMillis() + 5).commit();
    assertEquals(1, result.counts().dataFiles());
    assertFalse(exists(files.get(0).path()));
    for (int i = 1; i < 5; i++) {
      assertTrue(exists(files.get(i).path()));
    }
  }

  @Test
  public void cleanExpiredMetadataRemovesSpecsAndSchemasNoRetainedSnapshotUses() {
    TableMetadata base = table.current();
    PartitionSpec unpartitioned = PartitionSpec.builderFor(ExpireFixtures.SCHEMA).build();
    table.ops.commit(base, TableMetadata.buildFrom(base).setDefaultPartitionSpec(unpartitioned).build());
    int oldSpec = base.defaultSpecId();
    new ExpireSnapshots(table.ops).now(ts(4) + 10).expireOlderThan(ts(4) + 1).commit();
    assertNotNull("without clean_expired_metadata the spec stays", table.current().spec(oldSpec));
    DataFile f = DataFile.builder(table.current().spec())
        .withPath(table.current().location() + "/data/unpartitioned.parquet")
        .withFormat(io.floe.format.manifest.FileFormat.PARQUET)
        .withPartition(io.floe.format.partition.PartitionData.of())
        .withRecordCount(1).withFileSizeInBytes(10).withMetrics(io.floe.format.manifest.Metrics.empty(1)).build();
    new OverwriteFiles(table.ops).replaceAll().addFile(f).commit();
    // the overwrite lists a manifest of DELETED entries in the old spec; the next commit drops it
    new AppendFiles(table.ops).appendFile(DataFile.builder(table.current().spec()).copy(f)
        .withPath(f.path().replace("unpartitioned", "second")).build()).commit();
    new ExpireSnapshots(table.ops).cleanExpiredMetadata(true).now(System.currentTimeMillis() + 10)
        .expireOlderThan(System.currentTimeMillis() + 5).commit();
    TableMetadata m = table.current();
    assertEquals(1, m.snapshots().size());
    assertNull("a spec no retained manifest uses is removed", m.spec(oldSpec));
    assertEquals(1, m.specs().size());
  }

  @Test
  public void failedDeletesAreCountedAndDoNotStopTheOthers() throws Exception {
    new OverwriteFiles(table.ops).deleteFile(files.get(0).path()).deleteFile(files.get(1).path())
        .addFile(table.dataFile()).commit();
    TableMetadata before = table.current();
    TableMetadata after = new ExpireSnapshots(table.ops).now(System.currentTimeMillis() + 10)
        .expireOlderThan(System.currentTimeMillis() + 5).apply(before);
    CleanupPlan plan = ExpiredFileCleanup.plan(table.ops.io(), before, after);
    FileIO failing = new io.floe.format.io.ForwardingFileIO(table.ops.io()) {
      @Override
      public boolean deleteFile(String location) throws java.io.IOException {
        if (location.equals(files.get(0).path())) {
          throw new java.io.IOException("permission denied");
        }
        return super.deleteFile(location);
      }
    };
    DeletionCounts counts = FileDeleter.delete(failing, plan, 3);
    assertEquals(1, counts.failures());
    assertEquals(1, counts.dataFiles());
    assertEquals(5, counts.manifestLists());
    assertTrue(exists(files.get(0).path()));
    assertFalse(exists(files.get(1).path()));
  }
}
