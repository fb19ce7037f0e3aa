package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Compaction commits: replaced files, their deletes, sequence numbers, and concurrent commits. */
public class TestRewriteFiles {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;
  private DataFile eu1;
  private DataFile eu2;
  private DataFile us;

  private void createTable(int formatVersion) {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    ops = CommitFixtures.create(catalog, "t" + formatVersion, Map.of(), formatVersion);
    TableMetadata base = ops.refresh();
    eu1 = CommitFixtures.dataFile(base, "eu", 100);
    eu2 = CommitFixtures.dataFile(base, "eu", 20);
    us = CommitFixtures.dataFile(base, "us", 50);
    new AppendFiles(ops).appendFile(eu1).appendFile(eu2).appendFile(us).commit();
  }

  private static PartitionSpec spec() {
    return PartitionSpec.builderFor(CommitFixtures.SCHEMA).identity("region").build();
  }

  private static DeleteFile positionDeletes(DataFile data, long count) {
    return DeleteFile.builder(spec()).withContent(FileContent.POSITION_DELETES)
        .withPath(data.path().replace(".parquet", "-deletes-" + UUID.randomUUID() + ".parquet"))
        .withFormat(FileFormat.PARQUET).withPartition(data.partition()).withRecordCount(count)
        .withFileSizeInBytes(40 + count).withMetrics(Metrics.empty(count)).withReferencedDataFile(data.path()).build();
  }

  private DeleteFile deletionVector(DataFile data, long cardinality) {
    return DeleteFile.builder(spec()).withContent(FileContent.POSITION_DELETES)
        .withPath(ops.current().location() + "/data/" + UUID.randomUUID() + ".puffin")
        .withFormat(FileFormat.PUFFIN).withPartition(data.partition()).withRecordCount(cardinality)
        .withFileSizeInBytes(1000).withMetrics(Metrics.empty(cardinality)).withReferencedDataFile(data.path())
        .withContentOffset(4L).withContentSizeInBytes(20L + cardinality).build();
  }

  private static DeleteFile equalityDeletes(DataFile data) {
    return DeleteFile.builder(spec()).withContent(FileContent.EQUALITY_DELETES)
        .withPath(data.path().replace(".parquet", "-eq-" + UUID.randomUUID() + ".parquet"))
        .withFormat(FileFormat.PARQUET).withPartition(data.partition()).withRecordCount(1)
        .withFileSizeInBytes(41).withMetrics(Metrics.empty(1)).withEqualityFieldIds(List.of(1)).build();
  }

  private Map<String, FileScanTask> liveTasks() {
    Map<String, FileScanTask> out = new HashMap<>();
    for (FileScanTask task : TableScan.of(ops.io(), ops.refresh()).planFiles().tasks()) {
      out.put(task.file().path(), task);
    }
    return out;
  }

  /** A rewrite of eu1 and eu2 into one file, validated from the current snapshot. */
  private RewriteFiles compactEu(DataFile compacted) {
    Snapshot start = ops.refresh().currentSnapshot();
    return new RewriteFiles(ops).rewriteFile(eu1).rewriteFile(eu2).addFile(compacted)
        .dataSequenceNumber(start.sequenceNumber()).validateFromSnapshot(start.snapshotId());
  }

  @Test
  public void replacesFilesAndDropsTheirDeletes() {
    createTable(2);
    DeleteFile deletes = positionDeletes(eu1, 7);
    new RowDelta(ops).addDeletes(deletes).commit();
    long startSeq = ops.refresh().currentSnapshot().sequenceNumber();
    DataFile compacted = CommitFixtures.dataFile(ops.current(), "eu", 113);
    Snapshot snap = compactEu(compacted).commit();

    assertEquals("replace", snap.operation());
    assertEquals("2", snap.summary().get("deleted-data-files"));
    assertEquals("1", snap.summary().get("added-data-files"));
    assertEquals("1", snap.summary().get("removed-delete-files"));
    assertEquals("0", snap.summary().get("total-delete-files"));
    Map<String, FileScanTask> live = liveTasks();
    assertEquals(paths(compacted.path(), us.path()), live.keySet());
    assertTrue(live.get(compacted.path()).deletes().isEmpty());
    assertEquals(startSeq, live.get(compacted.path()).dataSequenceNumber());
    assertTrue("the new snapshot's sequence number is above the data's",
        snap.sequenceNumber() > live.get(compacted.path()).dataSequenceNumber());
  }

  private static java.util.Set<String> paths(String... paths) {
    return java.util.Set.of(paths);
  }

  @Test
  public void concurrentDeletionVectorOnARewrittenFileFails() {
    createTable(3);
    RewriteFiles rewrite = compactEu(CommitFixtures.dataFile(ops.current(), "eu", 120));
    new RowDelta(ops).addDeletes(deletionVector(eu2, 3)).commit();
    long before = ops.refresh().currentSnapshot().snapshotId();
    try {
      rewrite.commit();
      fail("a deletion vector committed after the rewrite read eu2 must fail it");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu2.path())
          && expected.getMessage().contains("db.t3") && expected.getMessage().contains("deletion vector"));
    }
    assertEquals(before, ops.refresh().currentSnapshot().snapshotId());
    assertEquals(1, liveTasks().get(eu2.path()).deletes().size());
  }

  @Test
  public void concurrentPositionDeletesOnARewrittenFileFail() {
    createTable(2);
    RewriteFiles rewrite = compactEu(CommitFixtures.dataFile(ops.current(), "eu", 120));
    new RowDelta(ops).addDeletes(positionDeletes(eu1, 2)).commit();
    try {
      rewrite.commit();
      fail("position deletes committed after the rewrite read eu1 must fail it");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu1.path()));
    }
  }

  @Test
  public void concurrentDeletesOnOtherFilesAndAppendsAreFine() {
    createTable(3);
    DataFile compacted = CommitFixtures.dataFile(ops.current(), "eu", 120);
    RewriteFiles rewrite = compactEu(compacted);
    DataFile appended = CommitFixtures.dataFile(ops.current(), "eu", 5);
    new AppendFiles(ops).appendFile(appended).commit();
    new RowDelta(ops).addDeletes(deletionVector(us, 2)).commit();
    Snapshot snap = rewrite.commit();
    assertEquals("replace", snap.operation());
    Map<String, FileScanTask> live = liveTasks();
    assertEquals(paths(compacted.path(), appended.path(), us.path()), live.keySet());
    assertEquals(1, live.get(us.path()).deletes().size());
  }

  @Test
  public void concurrentEqualityDeletesStillApplyToTheNewFiles() {
    createTable(2);
    DataFile compacted = CommitFixtures.dataFile(ops.current(), "eu", 120);
    RewriteFiles rewrite = compactEu(compacted);
    DeleteFile eq = equalityDeletes(eu1);
    new RowDelta(ops).addDeletes(eq).commit();
    rewrite.commit();
    List<DeleteFile> deletes = liveTasks().get(compacted.path()).deletes();
    assertEquals(List.of(eq.path()), deletes.stream().map(DeleteFile::path).toList());
  }

  @Test
  public void withoutTheOldSequenceNumberConcurrentEqualityDeletesConflict() {
    createTable(2);
    Snapshot start = ops.refresh().currentSnapshot();
    RewriteFiles rewrite = new RewriteFiles(ops).rewriteFile(eu1)
        .addFile(CommitFixtures.dataFile(ops.current(), "eu", 100)).validateFromSnapshot(start.snapshotId());
    new RowDelta(ops).addDeletes(equalityDeletes(eu1)).commit();
    try {
      rewrite.commit();
      fail("equality deletes newer than the read must conflict when the new files get the new sequence number");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("equality delete"));
    }
  }

  @Test
  public void aRewrittenFileRemovedConcurrentlyFails() {
    createTable(2);
    RewriteFiles rewrite = compactEu(CommitFixtures.dataFile(ops.current(), "eu", 120));
    new OverwriteFiles(ops).deleteFile(eu2.path()).commit();
    try {
      rewrite.commit();
      fail("eu2 is gone: its rows must not come back");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu2.path()));
    }
    assertEquals(paths(eu1.path(), us.path()), liveTasks().keySet());
  }
}
