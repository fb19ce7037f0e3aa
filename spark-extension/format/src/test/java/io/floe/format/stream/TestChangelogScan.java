package io.floe.format.stream;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.RewriteFiles;
import io.floe.format.commit.RowDelta;
import io.floe.format.deletes.DeletionVectorWriter;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import java.util.ArrayList;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The change feed's tasks for appends, copy-on-write, position deletes, deletion vectors and equality deletes. */
public class TestChangelogScan {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;

  private DataFile file(String region, long rows) {
    return StreamFixtures.dataFile(ops.refresh(), region, rows);
  }

  private ChangelogScan scan() {
    return ChangelogScan.of("db.t", ops.io(), ops.refresh());
  }

  /** Each task as "ordinal snapshot TYPE kind file-path [added deletes] [existing deletes]". */
  private static String describe(ChangelogTask t) {
    String head = t.changeOrdinal() + " " + t.commitSnapshotId() + " " + t.changeType() + " "
        + t.getClass().getSimpleName() + " " + t.file().path();
    if (t instanceof ChangelogTask.AddedRows a) {
      return head + " " + paths(a.deletes());
    } else if (t instanceof ChangelogTask.DeletedDataFile d) {
      return head + " " + paths(d.existingDeletes());
    }
    ChangelogTask.DeletedRows r = (ChangelogTask.DeletedRows) t;
    return head + " " + paths(r.addedDeletes()) + " " + paths(r.existingDeletes());
  }

  private static List<String> paths(List<DeleteFile> deletes) {
    List<String> out = new ArrayList<>();
    deletes.forEach(d -> out.add(d.path() + (d.contentOffset() == null ? "" : "@" + d.contentOffset())));
    return out;
  }

  private static List<String> describe(List<ChangelogTask> tasks) {
    return tasks.stream().map(TestChangelogScan::describe).toList();
  }

  @Test
  public void appendsCopyOnWriteAndCompactionInCommitOrder() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    DataFile a = file("eu", 10);
    DataFile b = file("us", 10);
    long s1 = StreamFixtures.append(ops, a, b);
    DataFile a2 = file("eu", 9);
    long s2 = new OverwriteFiles(ops).deleteFile(a.path()).addFile(a2).commit().snapshotId();
    DataFile compacted = file("us", 10);
    new RewriteFiles(ops).rewriteFile(b).addFile(compacted).commit();
    DataFile d = file("ap", 3);
    long s4 = StreamFixtures.append(ops, d);

    List<String> expected = List.of(
        "0 " + s1 + " INSERT AddedRows " + a.path() + " []",
        "0 " + s1 + " INSERT AddedRows " + b.path() + " []",
        "1 " + s2 + " INSERT AddedRows " + a2.path() + " []",
        "1 " + s2 + " DELETE DeletedDataFile " + a.path() + " []",
        "2 " + s4 + " INSERT AddedRows " + d.path() + " []");
    List<String> actual = describe(scan().planTasks(null, null));
    // order within a snapshot is manifest order; the ordinals below check the order across snapshots
    assertEquals(expected.stream().sorted().toList(), actual.stream().sorted().toList());
    assertEquals("ordinals follow commit order", List.of(0, 0, 1, 1, 2),
        scan().planTasks(null, null).stream().map(ChangelogTask::changeOrdinal).toList());

    // start exclusive, end inclusive: the range's first snapshot has ordinal 0
    assertEquals(List.of("0 " + s2 + " DELETE DeletedDataFile " + a.path() + " []",
        "0 " + s2 + " INSERT AddedRows " + a2.path() + " []"),
        describe(scan().planTasks(s1, s2)).stream().sorted().toList());
    // the compaction snapshot alone changes nothing
    long compaction = ops.refresh().snapshot(s4).parentId();
    assertTrue(scan().planTasks(s2, compaction).isEmpty());
  }

  @Test
  public void positionDeletesDeleteOnlyTheirNewRowsAndCarryEarlierDeletes() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    DataFile a = file("eu", 100);
    DataFile b = file("us", 100);
    long s1 = StreamFixtures.append(ops, a, b);
    DeleteFile first = StreamFixtures.positionDeletes(a, 3);
    long s2 = new RowDelta(ops).addDeletes(first).commit().snapshotId();
    DeleteFile second = StreamFixtures.positionDeletes(a, 2);
    long s3 = new RowDelta(ops).addDeletes(second).commit().snapshotId();

    assertEquals(List.of(
        "0 " + s2 + " DELETE DeletedRows " + a.path() + " [" + first.path() + "] []",
        "1 " + s3 + " DELETE DeletedRows " + a.path() + " [" + second.path() + "] [" + first.path() + "]"),
        describe(scan().planTasks(s1, s3)));
  }

  @Test
  public void equalityDeletesDeleteRowsOfOlderFilesOnly() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    DataFile a = file("eu", 100);
    DataFile other = file("us", 100);
    long s1 = StreamFixtures.append(ops, a, other);
    DataFile b = file("eu", 5);
    DeleteFile eq = StreamFixtures.equalityDeletes(ops.refresh(), "eu", 4);
    long s2 = new RowDelta(ops).addRows(b).addDeletes(eq).commit().snapshotId();

    // b has the delete's sequence number, so the delete does not apply to it; "us" is another partition
    assertEquals(List.of(
        "0 " + s2 + " INSERT AddedRows " + b.path() + " []",
        "0 " + s2 + " DELETE DeletedRows " + a.path() + " [" + eq.path() + "] []"),
        describe(scan().planTasks(s1, s2)));
  }

  @Test
  public void aReplacingDeletionVectorDeletesOnlyThePositionsItAdds() throws Exception {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 3);
    DataFile a = file("eu", 100);
    long s1 = StreamFixtures.append(ops, a);
    DeleteFile dv1 = writeDv(a, 1, 2);
    long s2 = new RowDelta(ops).addDeletes(dv1).commit().snapshotId();
    DeleteFile dv2 = writeDv(a, 1, 2, 5, 7);
    long s3 = new RowDelta(ops).removeDeletes(dv1).addDeletes(dv2).commit().snapshotId();

    List<ChangelogTask> tasks = scan().planTasks(s1, s3);
    assertEquals(2, tasks.size());
    ChangelogTask.DeletedRows second = (ChangelogTask.DeletedRows) tasks.get(1);
    assertEquals(s3, second.commitSnapshotId());
    assertEquals(List.of(dv2.path() + "@" + dv2.contentOffset()), paths(second.addedDeletes()));
    assertEquals(List.of(dv1.path() + "@" + dv1.contentOffset()), paths(second.existingDeletes()));
    assertEquals(positions(5, 7), ChangelogPositions.newlyDeleted(ops.io(), second));
    assertEquals(positions(1, 2), ChangelogPositions.newlyDeleted(ops.io(), (ChangelogTask.DeletedRows) tasks.get(0)));
  }

  @Test
  public void positionsNeedTheEngineWhenDeletesAreNotAllVectors() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    DataFile a = file("eu", 100);
    long s1 = StreamFixtures.append(ops, a);
    new RowDelta(ops).addDeletes(StreamFixtures.positionDeletes(a, 3)).commit();
    ChangelogTask.DeletedRows task = (ChangelogTask.DeletedRows) scan().planTasks(s1, null).get(0);
    assertNull(ChangelogPositions.newlyDeleted(ops.io(), task));
  }

  @Test
  public void rangeErrorsNameTheSnapshot() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    long s1 = StreamFixtures.append(ops, file("eu", 1));
    long s2 = StreamFixtures.append(ops, file("eu", 1));
    StreamFixtures.append(ops, file("eu", 1));
    try {
      scan().planTasks(null, 42L);
      fail("an unknown end snapshot must fail");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("end snapshot 42 does not exist"));
    }
    new ExpireSnapshots(ops).expireSnapshotId(s1).expireSnapshotId(s2).cleanExpiredFiles(false).commit();
    try {
      scan().planTasks(s1, null);
      fail("a range starting at an expired snapshot whose child expired too must fail");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("snapshot " + s1 + ": the snapshot no longer exists"));
    }
    assertEquals("a range from the expired parent of a live snapshot is whole", 1, scan().planTasks(s2, null).size());
  }

  @Test
  public void deletesWhoseParentExpiredCannotBeTurnedIntoChanges() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    DataFile a = file("eu", 100);
    StreamFixtures.append(ops, a);
    long s2 = StreamFixtures.append(ops, file("us", 1));
    new RowDelta(ops).addDeletes(StreamFixtures.positionDeletes(a, 3)).commit();
    new ExpireSnapshots(ops).expireSnapshotId(s2).cleanExpiredFiles(false).commit();
    try {
      scan().planTasks(s2, null);
      fail("the deletes applying before the commit are unknown once its parent expired");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("snapshot " + s2 + ": the snapshot no longer exists"));
    }
  }

  private DeleteFile writeDv(DataFile data, long... positions) throws Exception {
    String location = ops.refresh().location() + "/data/dv-" + java.util.UUID.randomUUID() + ".puffin";
    try (DeletionVectorWriter writer = new DeletionVectorWriter(ops.io().newOutputFile(location), "test")) {
      writer.add(data, StreamFixtures.SPEC, positions(positions));
      return writer.finish().get(0);
    }
  }

  private static RoaringPositionBitmap positions(long... positions) {
    RoaringPositionBitmap out = new RoaringPositionBitmap();
    for (long p : positions) {
      out.add(p);
    }
    return out;
  }
}
