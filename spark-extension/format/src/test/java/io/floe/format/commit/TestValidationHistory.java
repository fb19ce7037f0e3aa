package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.expr.Expressions;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.Map;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Validation from a starting snapshot that an expiry removed: the history after it is whole when
 * the oldest snapshot left is its child, as Iceberg's validationHistory accepts (found by the R2
 * conflict matrix: a DELETE, row delta or compaction failed whenever expire_snapshots ran during
 * it); it cannot be determined when snapshots after the start were expired too.
 */
public class TestValidationHistory {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;
  private DataFile eu;

  @Before
  public void createTable() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    ops = CommitFixtures.create(catalog, "t", Map.of());
    eu = CommitFixtures.dataFile(ops.refresh(), "eu", 10);
  }

  private void appendThenExpireOlder(String region) {
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), region, 1)).commit();
    new ExpireSnapshots(ops).cleanExpiredFiles(false).expireOlderThan(System.currentTimeMillis() + 60_000L)
        .retainLast(1).commit();
  }

  private OverwriteFiles copyOnWriteDeleteFrom(Snapshot read) {
    OverwriteFiles delete = new OverwriteFiles(ops).deleteFile(eu.path())
        .addFile(CommitFixtures.dataFile(ops.refresh(), "eu", 9));
    delete.validateFromSnapshot(read.snapshotId()).conflictDetectionFilter(Expressions.equal("region", "eu"))
        .validateNoConflictingDeleteFiles().validateNoConflictingDataFiles();
    return delete;
  }

  @Test
  public void anExpiredStartingSnapshotWhoseChildIsLeftStillValidates() {
    new AppendFiles(ops).appendFile(eu).commit();
    Snapshot read = ops.refresh().currentSnapshot();
    OverwriteFiles delete = copyOnWriteDeleteFrom(read);
    appendThenExpireOlder("us");
    assertNull("the starting snapshot was expired", ops.refresh().snapshot(read.snapshotId()));
    delete.commit();
    assertEquals("overwrite", ops.refresh().currentSnapshot().operation());
  }

  @Test
  public void aConflictAfterAnExpiredStartingSnapshotIsStillFound() {
    new AppendFiles(ops).appendFile(eu).commit();
    Snapshot read = ops.refresh().currentSnapshot();
    OverwriteFiles delete = copyOnWriteDeleteFrom(read);
    appendThenExpireOlder("eu");
    ValidationException e = assertThrows(ValidationException.class, delete::commit);
    assertTrue(e.getMessage(), e.getMessage().contains("serializable"));
  }

  @Test
  public void aCompactionAfterAnExpiredStartingSnapshotStillCommits() {
    new AppendFiles(ops).appendFile(eu).commit();
    Snapshot read = ops.refresh().currentSnapshot();
    RewriteFiles rewrite = new RewriteFiles(ops).validateFromSnapshot(read.snapshotId())
        .dataSequenceNumber(read.sequenceNumber());
    rewrite.rewriteFile(eu).addFile(CommitFixtures.dataFile(ops.refresh(), "eu", 10));
    appendThenExpireOlder("us");
    rewrite.commit();
    assertEquals("replace", ops.refresh().currentSnapshot().operation());
  }

  @Test
  public void snapshotsAfterTheStartThatWereExpiredMakeTheHistoryUnknown() {
    TableMetadata empty = ops.refresh();
    OverwriteFiles insert = new OverwriteFiles(ops).addFile(CommitFixtures.dataFile(empty, "eu", 1));
    insert.validateFromSnapshot(null).conflictDetectionFilter(Expressions.equal("region", "eu"))
        .validateNoConflictingDataFiles();
    new AppendFiles(ops).appendFile(eu).commit(); // would conflict: data in eu after the empty table was read
    appendThenExpireOlder("us"); // ... but its snapshot is expired
    ValidationException e = assertThrows(ValidationException.class, insert::commit);
    assertTrue(e.getMessage(), e.getMessage().contains("expired"));
  }
}
