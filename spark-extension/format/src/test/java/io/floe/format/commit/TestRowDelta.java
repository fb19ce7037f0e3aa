package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.expr.Expressions;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Merge-on-read commits, delete-file bookkeeping, and validation against concurrent commits. */
public class TestRowDelta {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;
  private DataFile eu;
  private DataFile us;

  @Before
  public void createTable() {
    createTable(2);
  }

  /** Format v2 for position delete files; v3 for deletion vectors. */
  private void createTable(int formatVersion) {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    ops = CommitFixtures.create(catalog, "t" + formatVersion, Map.of(), formatVersion);
    TableMetadata base = ops.refresh();
    eu = CommitFixtures.dataFile(base, "eu", 100);
    us = CommitFixtures.dataFile(base, "us", 50);
    new AppendFiles(ops).appendFile(eu).appendFile(us).commit();
  }

  private static DeleteFile positionDeletes(DataFile data, long count) {
    return DeleteFile.builder(specOf(data)).withContent(FileContent.POSITION_DELETES)
        .withPath(data.path().replace(".parquet", "-deletes-" + UUID.randomUUID() + ".parquet"))
        .withFormat(FileFormat.PARQUET).withPartition(data.partition()).withRecordCount(count)
        .withFileSizeInBytes(40 + count).withMetrics(Metrics.empty(count)).withReferencedDataFile(data.path()).build();
  }

  private static DeleteFile deletionVector(DataFile data, String puffin, long offset, long cardinality) {
    return DeleteFile.builder(specOf(data)).withContent(FileContent.POSITION_DELETES).withPath(puffin)
        .withFormat(FileFormat.PUFFIN).withPartition(data.partition()).withRecordCount(cardinality)
        .withFileSizeInBytes(1000).withMetrics(Metrics.empty(cardinality)).withReferencedDataFile(data.path())
        .withContentOffset(offset).withContentSizeInBytes(20L + cardinality).build();
  }

  private static io.floe.format.partition.PartitionSpec specOf(DataFile data) {
    return io.floe.format.partition.PartitionSpec.builderFor(CommitFixtures.SCHEMA).identity("region").build();
  }

  private Map<String, List<DeleteFile>> deletesByDataFile() {
    TableMetadata current = ops.refresh();
    Map<String, List<DeleteFile>> out = new HashMap<>();
    for (FileScanTask task : TableScan.of(ops.io(), current).planFiles().tasks()) {
      out.put(task.file().path(), task.deletes());
    }
    return out;
  }

  @Test
  public void positionDeletesCommitAsDeleteWithSummaryCounts() {
    DeleteFile deletes = positionDeletes(eu, 7);
    Snapshot snap = new RowDelta(ops).addDeletes(deletes).validateDataFilesExist(List.of(eu.path())).commit();
    assertEquals("delete", snap.operation());
    Map<String, String> s = snap.summary();
    assertEquals("1", s.get("added-delete-files"));
    assertEquals("1", s.get("added-position-delete-files"));
    assertEquals("7", s.get("added-position-deletes"));
    assertEquals("1", s.get("total-delete-files"));
    assertEquals("7", s.get("total-position-deletes"));
    assertEquals("150", s.get("total-records"));
    assertNull(s.get("added-dvs"));
    assertEquals(List.of(deletes.path()), deletesByDataFile().get(eu.path()).stream().map(DeleteFile::path).toList());
    assertTrue(deletesByDataFile().get(us.path()).isEmpty());
  }

  @Test
  public void insertsWithDeletesAreAnOverwriteAndInsertsAloneAnAppend() {
    DataFile inserted = CommitFixtures.dataFile(ops.refresh(), "eu", 3);
    Snapshot both = new RowDelta(ops).addRows(inserted).addDeletes(positionDeletes(eu, 1)).commit();
    assertEquals("overwrite", both.operation());
    assertEquals("153", both.summary().get("total-records"));
    Snapshot only = new RowDelta(ops).addRows(CommitFixtures.dataFile(ops.refresh(), "us", 2)).commit();
    assertEquals("append", only.operation());
  }

  @Test
  public void aNewDeletionVectorReplacesTheOldOne() {
    createTable(3);
    String puffin1 = ops.current().location() + "/data/a.puffin";
    String puffin2 = ops.current().location() + "/data/b.puffin";
    DeleteFile first = deletionVector(eu, puffin1, 4, 3);
    new RowDelta(ops).addDeletes(first).commit();
    DeleteFile second = deletionVector(eu, puffin2, 4, 5);
    try {
      new RowDelta(ops).addDeletes(second).commit();
      fail("two deletion vectors for one data file must be refused");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu.path())
          && expected.getMessage().contains("db.t"));
    }
    Snapshot snap = new RowDelta(ops).addDeletes(second).removeDeletes(first).commit();
    assertEquals("1", snap.summary().get("added-dvs"));
    assertEquals("1", snap.summary().get("removed-dvs"));
    assertEquals("1", snap.summary().get("total-delete-files"));
    assertEquals("5", snap.summary().get("total-position-deletes"));
    List<DeleteFile> live = deletesByDataFile().get(eu.path());
    assertEquals(1, live.size());
    assertEquals(puffin2, live.get(0).path());
  }

  @Test
  public void replacingADeleteFileThatIsGoneFails() {
    DeleteFile first = positionDeletes(eu, 2);
    new RowDelta(ops).addDeletes(first).commit();
    new RowDelta(ops).addDeletes(positionDeletes(eu, 3)).removeDeletes(first).commit();
    try {
      new RowDelta(ops).addDeletes(positionDeletes(eu, 4)).removeDeletes(first).commit();
      fail("the replaced delete file is no longer live");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(first.path()));
    }
  }

  @Test
  public void removingADataFileRemovesItsDeletes() {
    createTable(3);
    String puffin = ops.current().location() + "/data/a.puffin";
    new RowDelta(ops).addDeletes(deletionVector(eu, puffin, 4, 3)).addDeletes(deletionVector(us, puffin, 40, 2))
        .commit();
    DataFile rewritten = CommitFixtures.dataFile(ops.refresh(), "eu", 97);
    Snapshot snap = new OverwriteFiles(ops).deleteFile(eu.path()).addFile(rewritten).commit();
    assertEquals("overwrite", snap.operation());
    assertEquals("1", snap.summary().get("removed-dvs"));
    assertEquals("1", snap.summary().get("total-delete-files"));
    assertEquals("2", snap.summary().get("total-position-deletes"));
    assertEquals("147", snap.summary().get("total-records"));
    Map<String, List<DeleteFile>> deletes = deletesByDataFile();
    assertTrue(deletes.get(rewritten.path()).isEmpty());
    assertEquals(1, deletes.get(us.path()).size());
  }

  @Test
  public void serializableFailsOnAConcurrentAppendThatMayMatch() {
    long read = ops.refresh().currentSnapshot().snapshotId();
    Snapshot concurrent = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
    try {
      new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).validateFromSnapshot(read)
          .conflictDetectionFilter(Expressions.equal("region", "eu")).validateNoConflictingDataFiles()
          .validateNoConflictingDeleteFiles().commit();
      fail("a concurrent append into the operation's rows conflicts under serializable isolation");
    } catch (ValidationException expected) {
      String m = expected.getMessage();
      assertTrue(m, m.contains("db.t") && m.contains(Long.toString(concurrent.snapshotId())) && m.contains("append"));
    }
    assertEquals(concurrent.snapshotId(), ops.refresh().currentSnapshot().snapshotId());
  }

  @Test
  public void appendsOutsideTheFilterOrUnderSnapshotIsolationDoNotConflict() {
    long read = ops.refresh().currentSnapshot().snapshotId();
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 1)).commit();
    new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).validateFromSnapshot(read)
        .conflictDetectionFilter(Expressions.equal("region", "eu")).validateNoConflictingDataFiles()
        .validateNoConflictingDeleteFiles().commit();
    long read2 = ops.refresh().currentSnapshot().snapshotId();
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
    Snapshot snap = new RowDelta(ops).addDeletes(positionDeletes(us, 1)).validateFromSnapshot(read2)
        .conflictDetectionFilter(Expressions.equal("region", "eu")).validateNoConflictingDeleteFiles().commit();
    assertEquals("delete", snap.operation());
  }

  @Test
  public void concurrentDeletesForTheSameDataFileConflict() {
    long read = ops.refresh().currentSnapshot().snapshotId();
    new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).commit();
    try {
      new RowDelta(ops).addDeletes(positionDeletes(eu, 2)).validateFromSnapshot(read)
          .validateNoConflictingDeleteFiles().commit();
      fail("concurrent deletes for the same data file conflict");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu.path()));
    }
    // ... but not deletes for another data file
    long read2 = ops.refresh().currentSnapshot().snapshotId();
    new RowDelta(ops).addDeletes(positionDeletes(us, 1)).commit();
    new RowDelta(ops).addDeletes(positionDeletes(eu, 2)).validateFromSnapshot(read2)
        .validateNoConflictingDeleteFiles().commit();
  }

  @Test
  public void copyOnWriteFailsWhenTheRewrittenFileGotDeletesConcurrently() {
    long read = ops.refresh().currentSnapshot().snapshotId();
    new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).commit();
    try {
      new OverwriteFiles(ops).deleteFile(eu.path()).addFile(CommitFixtures.dataFile(ops.refresh(), "eu", 99))
          .validateFromSnapshot(read).validateNoConflictingDeleteFiles().commit();
      fail("rewriting a file whose rows were deleted concurrently would bring them back");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu.path()));
    }
  }

  @Test
  public void deletesForADataFileRemovedConcurrentlyFail() {
    new OverwriteFiles(ops).deleteFile(eu.path()).commit();
    try {
      new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).validateDataFilesExist(List.of(eu.path())).commit();
      fail("the data file is gone");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains(eu.path()));
    }
  }

  @Test
  public void aStartingSnapshotThatIsNoLongerAnAncestorFails() {
    try {
      new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).validateFromSnapshot(42L)
          .validateNoConflictingDeleteFiles().commit();
      fail("unknown starting snapshot");
    } catch (ValidationException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("42"));
    }
  }

  @Test
  public void formatV3RefusesNewPositionDeleteFiles() {
    createTable(3);
    try {
      new RowDelta(ops).addDeletes(positionDeletes(eu, 1)).commit();
      fail("v3 tables take deletion vectors, not new position delete files");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("deletion vector"));
    }
  }

  @Test
  public void anEmptyRowDeltaCommitsNothing() {
    Snapshot before = ops.refresh().currentSnapshot();
    Snapshot result = new RowDelta(ops).validateFromSnapshot(before.snapshotId()).commit();
    assertEquals(before.snapshotId(), result.snapshotId());
    assertEquals(before.snapshotId(), ops.refresh().currentSnapshot().snapshotId());
  }
}
