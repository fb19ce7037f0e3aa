package io.floe.format.stream;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.ManageSnapshots;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.RewriteFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.maintenance.ExpireSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Streaming reads of appended files: commit order, limits, skipped and refused snapshots, expiry. */
public class TestIncrementalAppendScan {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;

  @Before
  public void createTable() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
  }

  private DataFile file(String region, long rows) {
    return StreamFixtures.dataFile(ops.refresh(), region, rows);
  }

  private IncrementalAppendScan scan(StreamingReadOptions options) {
    return IncrementalAppendScan.of("db.t", ops.io(), ops.refresh(), options);
  }

  private static List<String> paths(List<AppendedFile> files) {
    List<String> out = new ArrayList<>();
    files.forEach(f -> out.add(f.file().path()));
    return out;
  }

  private static List<String> paths(DataFile... files) {
    List<String> out = new ArrayList<>();
    for (DataFile f : files) {
      out.add(f.path());
    }
    return out;
  }

  /** Reads batches from {@code start} until one is empty; each batch is also re-planned from its offsets. */
  private List<List<String>> drain(IncrementalAppendScan scan, StreamingOffset start, int maxFiles, long maxRows) {
    List<List<String>> batches = new ArrayList<>();
    StreamingOffset offset = start;
    while (true) {
      MicroBatch batch = scan.nextBatch(offset, maxFiles, maxRows, null);
      if (batch.files().isEmpty()) {
        assertEquals("an empty batch does not move the offset past unread files", batch.end(),
            scan.nextBatch(batch.end(), maxFiles, maxRows, null).end());
        return batches;
      }
      assertEquals(paths(batch.files()), paths(scan.planFiles(offset, batch.end())));
      StreamingOffset restored = StreamingOffset.fromJson(batch.end().toJson());
      assertEquals(batch.end(), restored);
      batches.add(paths(batch.files()));
      offset = restored;
    }
  }

  @Test
  public void appendsAreReadOnceInCommitOrderWithinTheFileLimit() {
    DataFile a = file("eu", 10);
    DataFile b = file("us", 10);
    DataFile c = file("eu", 10);
    DataFile d = file("ap", 10);
    DataFile e = file("us", 10);
    DataFile f = file("eu", 10);
    StreamFixtures.append(ops, a, b);
    long s2 = StreamFixtures.append(ops, c);
    StreamFixtures.append(ops, d, e, f);

    List<List<String>> batches = drain(scan(StreamingReadOptions.DEFAULTS), StreamingOffset.START, 2, Long.MAX_VALUE);
    List<String> all = new ArrayList<>();
    batches.forEach(all::addAll);
    assertEquals(3, batches.size());
    assertEquals(paths(a, b), batches.get(0));
    assertEquals(2, batches.get(1).size());
    assertEquals(paths(a, b, c, d, e, f).stream().sorted().toList(), all.stream().sorted().toList());
    assertEquals("files of one snapshot come before the next snapshot's", paths(c), batches.get(1).subList(0, 1));

    MicroBatch first = scan(StreamingReadOptions.DEFAULTS).nextBatch(StreamingOffset.START, 2, Long.MAX_VALUE, null);
    assertEquals("a full batch ends before the next unread file", new StreamingOffset(s2, 0, false, false),
        first.end());
    assertEquals(List.of(0L, 1L), first.files().stream().map(AppendedFile::position).toList());
  }

  @Test
  public void appendsWhoseManifestsWereMergedAreReadOnceEach() throws Exception {
    ops = StreamFixtures.create(temp.newFolder().toPath(), 2, Map.of("commit.manifest.min-count-to-merge", "2"));
    List<String> appended = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      DataFile f = file("eu", 1);
      StreamFixtures.append(ops, f);
      appended.add(f.path());
    }
    TableMetadata merged = ops.refresh();
    assertTrue("the appends' manifests were merged", ManifestLists.read(
        ops.io().newInputFile(merged.currentSnapshot().manifestListLocation())).size() < appended.size());
    List<String> read = new ArrayList<>();
    drain(scan(StreamingReadOptions.DEFAULTS), StreamingOffset.START, 1, Long.MAX_VALUE).forEach(read::addAll);
    assertEquals("one file per batch, in commit order, none twice", appended, read);
  }

  @Test
  public void newAppendsAfterACaughtUpOffsetAreRead() {
    StreamFixtures.append(ops, file("eu", 1));
    IncrementalAppendScan scan = scan(StreamingReadOptions.DEFAULTS);
    StreamingOffset caughtUp = scan.latestOffset(StreamingOffset.START);
    assertTrue(scan.nextBatch(caughtUp).files().isEmpty());
    DataFile late = file("us", 1);
    StreamFixtures.append(ops, late);
    assertEquals(paths(late), paths(scan(StreamingReadOptions.DEFAULTS).nextBatch(caughtUp).files()));
  }

  @Test
  public void rowLimitStopsBeforeAFileThatWouldExceedItButTakesALargeFileAlone() {
    DataFile small1 = file("eu", 40);
    DataFile small2 = file("eu", 40);
    DataFile big = file("us", 500);
    DataFile small3 = file("eu", 40);
    StreamFixtures.append(ops, small1, small2, big, small3);
    List<List<String>> batches = drain(scan(StreamingReadOptions.DEFAULTS), StreamingOffset.START,
        Integer.MAX_VALUE, 100);
    assertEquals(List.of(paths(small1, small2), paths(big), paths(small3)), batches);
  }

  @Test
  public void availableNowCapStopsAtTheOffsetTakenWhenTheTriggerStarted() {
    DataFile a = file("eu", 1);
    StreamFixtures.append(ops, a);
    StreamingOffset cap = scan(StreamingReadOptions.DEFAULTS).latestOffset(StreamingOffset.START);
    StreamFixtures.append(ops, file("us", 1));
    MicroBatch batch = scan(StreamingReadOptions.DEFAULTS).nextBatch(StreamingOffset.START, 10, 10, cap);
    assertEquals(paths(a), paths(batch.files()));
    assertEquals(cap, batch.end());
    MicroBatch after = scan(StreamingReadOptions.DEFAULTS).nextBatch(batch.end(), 10, 10, cap);
    assertTrue("at the cap nothing more is read, though more was appended", after.files().isEmpty());
    assertEquals(cap, after.end());
  }

  @Test
  public void availableNowOnAnEmptyTableReadsNothingCommittedLater() {
    StreamingOffset cap = scan(StreamingReadOptions.DEFAULTS).latestOffset(StreamingOffset.START);
    assertTrue(cap.isStart());
    StreamFixtures.append(ops, file("eu", 1));
    MicroBatch batch = scan(StreamingReadOptions.DEFAULTS).nextBatch(StreamingOffset.START, 10, 10, cap);
    assertTrue(batch.files().isEmpty());
    assertTrue(batch.end().isStart());
  }

  @Test
  public void compactionSnapshotsAreSkipped() {
    DataFile a = file("eu", 10);
    DataFile b = file("eu", 10);
    StreamFixtures.append(ops, a, b);
    DataFile compacted = file("eu", 20);
    new RewriteFiles(ops).rewriteFile(a).rewriteFile(b).addFile(compacted).commit();
    DataFile c = file("us", 5);
    StreamFixtures.append(ops, c);
    assertEquals(List.of(paths(a, b, c)), drain(scan(StreamingReadOptions.DEFAULTS), StreamingOffset.START, 100,
        Long.MAX_VALUE));
  }

  @Test
  public void deleteSnapshotIsAnErrorNamingTheSnapshotAndOptionUnlessSkipped() {
    DataFile a = file("eu", 10);
    DataFile b = file("us", 10);
    StreamFixtures.append(ops, a, b);
    long delete = new OverwriteFiles(ops).deleteFile(a.path()).commit().snapshotId();
    assertEquals("delete", ops.refresh().snapshot(delete).operation());
    DataFile c = file("us", 5);
    StreamFixtures.append(ops, c);

    IncrementalAppendScan strict = scan(StreamingReadOptions.DEFAULTS);
    MicroBatch before = strict.nextBatch(StreamingOffset.START);
    assertEquals("the rows before the delete are delivered first", paths(a, b), paths(before.files()));
    try {
      strict.nextBatch(before.end());
      fail("a delete snapshot must not be streamed silently");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_UNSUPPORTED, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("snapshot " + delete + " is a 'delete' snapshot"));
      assertTrue(e.getMessage(), e.getMessage().contains(StreamingReadOptions.SKIP_DELETE_SNAPSHOTS + "=true"));
      assertTrue(e.getMessage(), e.getMessage().contains("db.t"));
    }

    StreamingReadOptions skip = StreamingReadOptions.parse("db.t",
        Map.of(StreamingReadOptions.SKIP_DELETE_SNAPSHOTS, "true"));
    assertEquals(paths(c), paths(scan(skip).nextBatch(before.end()).files()));
  }

  @Test
  public void overwriteSnapshotIsAnErrorUnlessItsOwnOptionSkipsIt() {
    DataFile a = file("eu", 10);
    StreamFixtures.append(ops, a);
    StreamingOffset afterA = scan(StreamingReadOptions.DEFAULTS).latestOffset(StreamingOffset.START);
    DataFile replacement = file("eu", 9);
    long overwrite = new OverwriteFiles(ops).deleteFile(a.path()).addFile(replacement).commit().snapshotId();
    DataFile c = file("us", 5);
    StreamFixtures.append(ops, c);

    StreamingReadOptions skipDeletesOnly = StreamingReadOptions.parse("db.t",
        Map.of("Streaming-Skip-Delete-Snapshots", "true"));
    try {
      scan(skipDeletesOnly).nextBatch(afterA);
      fail("an overwrite snapshot must not be streamed silently");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("snapshot " + overwrite + " is a 'overwrite' snapshot"));
      assertTrue(e.getMessage(), e.getMessage().contains(StreamingReadOptions.SKIP_OVERWRITE_SNAPSHOTS));
      assertEquals(Long.toString(overwrite), e.parameters().get("snapshot"));
    }
    StreamingReadOptions skip = StreamingReadOptions.parse("db.t",
        Map.of(StreamingReadOptions.SKIP_OVERWRITE_SNAPSHOTS, "true"));
    assertEquals("the whole overwrite snapshot is skipped, as Iceberg does", paths(c),
        paths(scan(skip).nextBatch(afterA).files()));
  }

  @Test
  public void anUnreadSnapshotRemovedByExpiryIsAnErrorNotSilentLoss() {
    StreamFixtures.append(ops, file("eu", 1));
    IncrementalAppendScan first = scan(StreamingReadOptions.DEFAULTS);
    StreamingOffset afterS1 = first.latestOffset(StreamingOffset.START);
    long s2 = StreamFixtures.append(ops, file("us", 1), file("us", 1));
    StreamFixtures.append(ops, file("ap", 1));
    // the stream read one of s2's two files, then s2 expired
    MicroBatch partial = scan(StreamingReadOptions.DEFAULTS).nextBatch(afterS1, 1, Long.MAX_VALUE, null);
    assertEquals(new StreamingOffset(s2, 1, false, false), partial.end());
    new ExpireSnapshots(ops).expireSnapshotId(afterS1.snapshotId()).expireSnapshotId(s2).cleanExpiredFiles(false)
        .commit();
    try {
      scan(StreamingReadOptions.DEFAULTS).nextBatch(partial.end());
      fail("resuming inside an expired snapshot must fail");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("snapshot " + s2 + ": the snapshot no longer exists"));
    }
  }

  @Test
  public void replanningABatchWhoseLastSnapshotExpiredIsAnErrorNotAnEmptyBatch() {
    StreamFixtures.append(ops, file("eu", 1));
    long s2 = StreamFixtures.append(ops, file("us", 1));
    StreamingOffset end = scan(StreamingReadOptions.DEFAULTS).latestOffset(StreamingOffset.START);
    StreamFixtures.append(ops, file("ap", 1));
    // the batch START..end was logged, then its snapshots expired before it ran (a restart replays it)
    new ExpireSnapshots(ops).expireOlderThan(Long.MAX_VALUE).retainLast(1).cleanExpiredFiles(false).commit();
    try {
      scan(StreamingReadOptions.DEFAULTS).planFiles(StreamingOffset.START, end);
      fail("planning files of an expired snapshot must fail");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("snapshot " + s2 + ": the snapshot no longer exists"));
    }
  }

  @Test
  public void aRefreshedScanSeesNewAppendsAndForgetsFilesOfCommittedSnapshots() {
    StreamFixtures.append(ops, file("eu", 1));
    StreamFixtures.append(ops, file("us", 1));
    IncrementalAppendScan scan = scan(StreamingReadOptions.DEFAULTS);
    StreamingOffset caughtUp = scan.latestOffset(StreamingOffset.START);
    assertEquals(2, scan.rememberedSnapshots());
    DataFile next = file("ap", 1);
    StreamFixtures.append(ops, next);
    IncrementalAppendScan refreshed = scan.refreshed(ops.refresh());
    assertEquals("files already read are kept across the refresh", 2, refreshed.rememberedSnapshots());
    MicroBatch batch = refreshed.nextBatch(caughtUp);
    assertEquals(paths(next), paths(batch.files()));
    refreshed.forgetBefore(caughtUp);
    assertEquals("only the committed snapshot and later ones are kept", 2, refreshed.rememberedSnapshots());
    refreshed.forgetBefore(batch.end());
    assertEquals(1, refreshed.rememberedSnapshots());
    assertEquals(batch.end(), refreshed.latestOffset(batch.end()));
  }

  @Test
  public void aCompletelyReadSnapshotMayExpireBeforeTheStreamResumes() {
    StreamFixtures.append(ops, file("eu", 1));
    StreamingOffset caughtUp = scan(StreamingReadOptions.DEFAULTS).latestOffset(StreamingOffset.START);
    assertTrue(caughtUp.complete());
    DataFile next = file("us", 1);
    StreamFixtures.append(ops, next);
    new ExpireSnapshots(ops).expireSnapshotId(caughtUp.snapshotId()).cleanExpiredFiles(false).commit();
    assertEquals(paths(next), paths(scan(StreamingReadOptions.DEFAULTS).nextBatch(caughtUp).files()));
  }

  @Test
  public void aStreamStartingAfterHistoryExpiredReadsTheWholeOldestSnapshot() {
    DataFile a = file("eu", 1);
    long s1 = StreamFixtures.append(ops, a);
    DataFile b = file("us", 1);
    long s2 = StreamFixtures.append(ops, b);
    new ExpireSnapshots(ops).expireSnapshotId(s1).cleanExpiredFiles(false).commit();
    MicroBatch batch = scan(StreamingReadOptions.DEFAULTS).nextBatch(StreamingOffset.START);
    assertEquals(paths(a, b).stream().sorted().toList(), paths(batch.files()).stream().sorted().toList());
    assertEquals(new StreamingOffset(s2, 2, true, true), batch.end());
  }

  @Test
  public void streamFromTimestampStartsAtTheFirstSnapshotCommittedAtOrAfterIt() throws InterruptedException {
    StreamFixtures.append(ops, file("eu", 1));
    Thread.sleep(5);
    DataFile b = file("us", 1);
    long s2 = StreamFixtures.append(ops, b);
    long t2 = ops.refresh().snapshot(s2).timestampMillis();
    StreamingReadOptions from = StreamingReadOptions.parse("db.t",
        Map.of(StreamingReadOptions.STREAM_FROM_TIMESTAMP, Long.toString(t2)));
    assertEquals(paths(b), paths(scan(from).nextBatch(StreamingOffset.START).files()));

    StreamingReadOptions future = StreamingReadOptions.parse("db.t",
        Map.of(StreamingReadOptions.STREAM_FROM_TIMESTAMP, Long.toString(t2 + 60_000)));
    MicroBatch none = scan(future).nextBatch(StreamingOffset.START);
    assertTrue(none.files().isEmpty());
    assertTrue("nothing read yet: the start is resolved again next time", none.end().isStart());
  }

  @Test
  public void streamFromATimestampBeforeExpiredHistoryIsAnError() throws InterruptedException {
    long s1 = StreamFixtures.append(ops, file("eu", 1));
    long t1 = ops.refresh().snapshot(s1).timestampMillis();
    Thread.sleep(5);
    long s2 = StreamFixtures.append(ops, file("us", 1));
    new ExpireSnapshots(ops).expireSnapshotId(s1).cleanExpiredFiles(false).commit();
    StreamingReadOptions from = StreamingReadOptions.parse("db.t",
        Map.of(StreamingReadOptions.STREAM_FROM_TIMESTAMP, Long.toString(t1)));
    try {
      scan(from).nextBatch(StreamingOffset.START);
      fail("the rows of expired snapshot " + s1 + ", committed at the start time, would be lost");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_TIME_TRAVEL_INVALID, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("oldest retained snapshot " + s2));
    }
    // without a timestamp the stream reads the table in full at its oldest snapshot instead
    assertTrue(scan(StreamingReadOptions.DEFAULTS).nextBatch(StreamingOffset.START).end().scanAllFiles());
  }

  @Test
  public void aScanOfAllFilesResumesInsideTheSnapshot() {
    long s1 = StreamFixtures.append(ops, file("eu", 1), file("eu", 1));
    DataFile c = file("us", 1);
    long s2 = StreamFixtures.append(ops, c);
    new ExpireSnapshots(ops).expireSnapshotId(s1).cleanExpiredFiles(false).commit();
    List<List<String>> batches = drain(scan(StreamingReadOptions.DEFAULTS), StreamingOffset.START, 2,
        Long.MAX_VALUE);
    assertEquals(List.of(2, 1), batches.stream().map(List::size).toList());
    MicroBatch first = scan(StreamingReadOptions.DEFAULTS).nextBatch(StreamingOffset.START, 2, Long.MAX_VALUE, null);
    assertEquals(new StreamingOffset(s2, 2, true, false), first.end());
    DataFile d = file("ap", 1);
    StreamFixtures.append(ops, d);
    assertEquals("after the full scan, only added files", paths(d),
        paths(scan(StreamingReadOptions.DEFAULTS).nextBatch(new StreamingOffset(s2, 3, true, true)).files()));
  }

  @Test
  public void anOffsetNotOnTheCurrentBranchIsAnError() {
    StreamFixtures.append(ops, file("eu", 1));
    TableMetadata before = ops.refresh();
    long dropped = StreamFixtures.append(ops, file("us", 1));
    // roll back: the current snapshot goes back to the first, the dropped one stays in the table
    TableMetadata base = ops.refresh();
    ops.commit(base, ManageSnapshots.rollbackTo(base, before.currentSnapshot().snapshotId(), "db.t"));
    try {
      scan(StreamingReadOptions.DEFAULTS).nextBatch(new StreamingOffset(dropped, 0, false, false));
      fail("an offset on a rolled-back snapshot must fail");
    } catch (FloeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("not an ancestor"));
      assertFalse(e.getMessage().contains("no longer exists"));
    }
  }
}
