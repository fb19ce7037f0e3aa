package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeException;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.SnapshotRefType;
import io.floe.format.metadata.TableMetadata;
import java.util.Map;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Branch and tag DDL semantics (Iceberg's), fast-forward validity, and DDL retention honoured by expiry. */
public class TestManageRefs {
  private static final String T = "cat.db.t";
  private static final ManageRefs.Retention NONE = ManageRefs.Retention.NONE;

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;
  private long first;
  private long second;

  @Before
  public void createTable() {
    ops = CommitFixtures.create(CommitFixtures.catalog(temp.getRoot().toPath()), "t", Map.of());
    first = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.current(), "eu", 10)).commit().snapshotId();
    second = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.current(), "us", 10)).commit().snapshotId();
  }

  private TableMetadata create(TableMetadata base, String name, SnapshotRefType type, Long at, ManageRefs.Mode mode,
      ManageRefs.Retention retention) {
    return ManageRefs.createOrReplace(base, T, name, type, at, mode, false, retention);
  }

  @Test
  public void createBranchAtCurrentOrVersionWithRetention() {
    TableMetadata m = create(ops.current(), "b", SnapshotRefType.BRANCH, null, ManageRefs.Mode.CREATE,
        new ManageRefs.Retention(3, 7_200_000L, 86_400_000L));
    SnapshotRef b = m.ref("b");
    assertEquals(second, b.snapshotId());
    assertTrue(b.isBranch());
    assertEquals(Integer.valueOf(3), b.minSnapshotsToKeep());
    assertEquals(Long.valueOf(7_200_000L), b.maxSnapshotAgeMs());
    assertEquals(Long.valueOf(86_400_000L), b.maxRefAgeMs());
    assertEquals("a new branch does not move main", second, m.currentSnapshot().snapshotId());
    TableMetadata tagged = create(m, "v1", SnapshotRefType.TAG, first, ManageRefs.Mode.CREATE,
        new ManageRefs.Retention(null, null, 60_000L));
    assertEquals(SnapshotRef.builderFor(first, SnapshotRefType.TAG).maxRefAgeMs(60_000L).build(), tagged.ref("v1"));
  }

  @Test
  public void createRefusesAnExistingRefUnlessIfNotExistsOrReplace() {
    TableMetadata m = create(ops.current(), "b", SnapshotRefType.BRANCH, first, ManageRefs.Mode.CREATE, NONE);
    expectRefused(() -> create(m, "b", SnapshotRefType.BRANCH, null, ManageRefs.Mode.CREATE, NONE),
        "Cannot create branch 'b' of table cat.db.t: it already exists (at snapshot " + first);
    assertSame(m, ManageRefs.createOrReplace(m, T, "b", SnapshotRefType.BRANCH, null, ManageRefs.Mode.CREATE, true,
        NONE));
    expectRefused(() -> create(m, "b", SnapshotRefType.TAG, null, ManageRefs.Mode.CREATE_OR_REPLACE, NONE),
        "a branch has that name");
    expectRefused(() -> create(m, "main", SnapshotRefType.TAG, null, ManageRefs.Mode.CREATE, NONE),
        "cannot be a tag");
  }

  @Test
  public void replaceMovesTheRefAndKeepsRetentionItDoesNotSet() {
    TableMetadata m = create(ops.current(), "b", SnapshotRefType.BRANCH, first, ManageRefs.Mode.CREATE,
        new ManageRefs.Retention(3, 1000L, 5000L));
    TableMetadata replaced = create(m, "b", SnapshotRefType.BRANCH, null, ManageRefs.Mode.REPLACE,
        new ManageRefs.Retention(5, null, null));
    SnapshotRef b = replaced.ref("b");
    assertEquals(second, b.snapshotId());
    assertEquals(Integer.valueOf(5), b.minSnapshotsToKeep());
    assertEquals(Long.valueOf(1000L), b.maxSnapshotAgeMs());
    assertEquals(Long.valueOf(5000L), b.maxRefAgeMs());
    try {
      create(m, "nope", SnapshotRefType.BRANCH, null, ManageRefs.Mode.REPLACE, NONE);
      fail("replacing a missing branch must fail");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("table cat.db.t has no branch named 'nope'"));
    }
    assertEquals(first, create(m, "new", SnapshotRefType.BRANCH, first, ManageRefs.Mode.CREATE_OR_REPLACE, NONE)
        .ref("new").snapshotId());
  }

  @Test
  public void unknownSnapshotAndEmptyTableAreRefused() {
    try {
      create(ops.current(), "b", SnapshotRefType.BRANCH, 42L, ManageRefs.Mode.CREATE, NONE);
      fail("an unknown snapshot must fail");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("no snapshot has id 42"));
    }
    FileSystemTableOperations empty = CommitFixtures.create(CommitFixtures.catalog(temp.getRoot().toPath()), "e",
        Map.of());
    expectRefused(() -> create(empty.current(), "b", SnapshotRefType.BRANCH, null, ManageRefs.Mode.CREATE, NONE),
        "the table has no snapshot yet");
  }

  @Test
  public void dropChecksNameTypeAndMain() {
    TableMetadata m = create(ops.current(), "b", SnapshotRefType.BRANCH, first, ManageRefs.Mode.CREATE, NONE);
    assertNull(ManageRefs.drop(m, T, "b", SnapshotRefType.BRANCH, false).ref("b"));
    expectRefused(() -> ManageRefs.drop(m, T, "b", SnapshotRefType.TAG, false), "'b' is a branch; use DROP BRANCH");
    expectRefused(() -> ManageRefs.drop(m, T, "main", SnapshotRefType.BRANCH, true), "cannot be dropped");
    assertSame(m, ManageRefs.drop(m, T, "nope", SnapshotRefType.TAG, true));
    try {
      ManageRefs.drop(m, T, "nope", SnapshotRefType.TAG, false);
      fail("dropping a missing tag must fail");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("has no tag named 'nope'"));
    }
  }

  @Test
  public void fastForwardOnlyMovesABranchToADescendant() {
    commitRef(create(ops.current(), "audit", SnapshotRefType.BRANCH, null, ManageRefs.Mode.CREATE, NONE));
    long onAudit = appendTo("audit");
    TableMetadata forwarded = ManageRefs.fastForward(ops.current(), T, "main", "audit");
    assertEquals(onAudit, forwarded.currentSnapshot().snapshotId());
    assertEquals("fast-forwarding to where the branch is changes nothing", forwarded,
        ManageRefs.fastForward(forwarded, T, "main", "audit"));
    // main moves on: main and audit have diverged
    long onMain = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.current(), "us", 1)).commit()
        .snapshotId();
    expectRefused(() -> ManageRefs.fastForward(ops.current(), T, "main", "audit"),
        "the head of 'main' (snapshot " + onMain + ") is not an ancestor of the head of 'audit' (snapshot " + onAudit);
    // going backwards is refused too: audit's head is an ancestor of main's, not a descendant
    expectRefused(() -> ManageRefs.fastForward(ops.current(), T, "audit", "main"), "is not an ancestor");
    // a missing branch is created at the target; a missing target is an error
    assertEquals(onMain, ManageRefs.fastForward(ops.current(), T, "copy", "main").ref("copy").snapshotId());
    try {
      ManageRefs.fastForward(ops.current(), T, "main", "nope");
      fail("a missing target must fail");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("has no branch or tag named 'nope'"));
    }
  }

  @Test
  public void retentionSetByDdlIsHonouredByExpiry() {
    TableMetadata m = create(ops.current(), "keep2", SnapshotRefType.BRANCH, null, ManageRefs.Mode.CREATE,
        new ManageRefs.Retention(2, null, null));
    m = create(m, "short", SnapshotRefType.TAG, first, ManageRefs.Mode.CREATE,
        new ManageRefs.Retention(null, null, 60_000L));
    commitRef(m);
    long keep2Head = appendTo("keep2");
    long later = ops.current().snapshot(keep2Head).timestampMillis() + 120_000L;
    new ExpireSnapshots(ops).now(later).expireOlderThan(later).retainLast(1).commit();
    TableMetadata expired = ops.refresh();
    assertNull("the tag older than its max-ref-age is dropped", expired.ref("short"));
    assertEquals(keep2Head, expired.ref("keep2").snapshotId());
    assertTrue("keep2 keeps two snapshots: its head and its parent",
        expired.snapshot(keep2Head) != null && expired.snapshot(second) != null);
    assertNull("first is kept by no ref any more", expired.snapshot(first));
  }

  private void commitRef(TableMetadata updated) {
    ops.commit(ops.current(), updated);
  }

  private static void expectRefused(Runnable action, String message) {
    try {
      action.run();
      fail("expected a refusal containing: " + message);
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(message));
    }
  }

  private long appendTo(String branch) {
    AppendFiles append = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.current(), "eu", 1));
    append.toBranch(branch);
    return append.commit().snapshotId();
  }
}
