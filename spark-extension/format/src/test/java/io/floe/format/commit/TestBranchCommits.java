package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeException;
import io.floe.format.expr.Expressions;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.TableScan;
import java.util.Map;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Commits to a branch other than main and staged (write-audit-publish) commits: what they build on,
 * which ref they move, and conflict validation against the branch's own history.
 */
public class TestBranchCommits {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;
  private long mainHead;

  @Before
  public void createTable() {
    ops = CommitFixtures.create(CommitFixtures.catalog(temp.getRoot().toPath()), "t", Map.of());
    mainHead = append(null, "eu").snapshotId();
  }

  private Snapshot append(String branch, String region) {
    AppendFiles append = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.current(), region, 10));
    if (branch != null) {
      append.toBranch(branch);
    }
    return append.commit();
  }

  private int liveFiles(long snapshotId) {
    TableMetadata m = ops.refresh();
    return TableScan.of(ops.io(), m).useSnapshot(m.snapshot(snapshotId)).planFiles().tasks().size();
  }

  @Test
  public void aCommitToANewBranchForksFromMainAndLeavesMainAlone() {
    Snapshot onDev = append("dev", "us");
    TableMetadata m = ops.refresh();
    assertEquals(mainHead, m.currentSnapshot().snapshotId());
    assertEquals(Long.valueOf(mainHead), onDev.parentId());
    assertEquals(SnapshotRef.branch(onDev.snapshotId()), m.ref("dev"));
    assertEquals(2, liveFiles(onDev.snapshotId()));
    Snapshot again = append("dev", "ap");
    assertEquals("the next commit builds on the branch head", Long.valueOf(onDev.snapshotId()), again.parentId());
    assertEquals(3, liveFiles(again.snapshotId()));
    assertEquals("main's snapshot-log is not touched", 1, ops.refresh().snapshotLog().size());
  }

  @Test
  public void aStagedCommitMovesNoRef() {
    AppendFiles staged = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.current(), "us", 10));
    staged.stageOnly().set(Cherrypick.WAP_ID, "w1");
    Snapshot snap = staged.commit();
    TableMetadata m = ops.refresh();
    assertNotNull(m.snapshot(snap.snapshotId()));
    assertEquals("w1", m.snapshot(snap.snapshotId()).summary().get("wap.id"));
    assertEquals(Long.valueOf(mainHead), snap.parentId());
    assertEquals(mainHead, m.currentSnapshot().snapshotId());
    assertEquals(1, m.refs().size());
    assertEquals(snap.snapshotId(), new Cherrypick(ops).apply(snap.snapshotId()).snapshotId());
  }

  @Test
  public void aCommitToATagIsRefused() {
    ops.commit(ops.current(), TableMetadata.buildFrom(ops.current()).setRef("v1", SnapshotRef.tag(mainHead)).build());
    TableMetadata before = ops.refresh();
    try {
      append("v1", "us");
      fail("a commit to a tag must fail");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("Cannot write to tag 'v1' of table"));
    }
    assertEquals(before.snapshots().size(), ops.refresh().snapshots().size());
  }

  @Test
  public void conflictValidationWalksTheBranchNotMain() {
    long devStart = append("dev", "us").snapshotId();
    // a concurrent append to main of data the operation's filter matches does not conflict ...
    append(null, "us");
    overwriteUsOn("dev", devStart).commit();
    assertEquals("main's us file is not on the branch", 1, liveFiles(ops.refresh().ref("dev").snapshotId()) - 1);
    long devHead = ops.refresh().ref("dev").snapshotId();
    // ... but a concurrent append to the branch itself does
    append("dev", "us");
    try {
      overwriteUsOn("dev", devHead).commit();
      fail("a concurrent append of matching data to the branch must conflict");
    } catch (ValidationException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("added data file"));
    }
    // and a stale starting snapshot from main's history is not an ancestor of the branch head
    try {
      overwriteUsOn("dev", ops.refresh().currentSnapshot().snapshotId()).commit();
      fail("validating a branch from a snapshot not on it must fail");
    } catch (ValidationException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("head of branch dev"));
    }
  }

  /** Serializable overwrite of region us on {@code branch}, validated from {@code readSnapshot}. */
  private SnapshotProducer overwriteUsOn(String branch, long readSnapshot) {
    OverwriteFiles overwrite = new OverwriteFiles(ops)
        .overwriteByRowFilter(Expressions.equal("region", "us"));
    overwrite.addFile(CommitFixtures.dataFile(ops.current(), "us", 5));
    return overwrite.toBranch(branch).validateFromSnapshot(readSnapshot)
        .conflictDetectionFilter(Expressions.equal("region", "us")).validateNoConflictingDataFiles();
  }
}
