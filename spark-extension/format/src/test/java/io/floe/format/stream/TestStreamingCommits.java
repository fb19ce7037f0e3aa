package io.floe.format.stream;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.StreamingErrors;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.RacingTableOperations;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.RewriteFiles;
import io.floe.format.commit.TableOperations;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A streaming sink's batches are recorded in snapshot summaries and found again after a restart. */
public class TestStreamingCommits {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;

  @Before
  public void createTable() {
    ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
  }

  private DataFile commitBatch(String query, long batch) {
    DataFile f = StreamFixtures.dataFile(ops.refresh(), "eu", 1);
    StreamingCommits.record(new AppendFiles(ops).appendFile(f), query, batch).commit();
    return f;
  }

  @Test
  public void aRetryDoesNotPublishABatchAnotherRunCommittedMeanwhile() {
    DataFile zombieFile = StreamFixtures.dataFile(ops.refresh(), "eu", 1);
    // another run of the query commits batch 3 just before this run's first attempt publishes
    TableOperations racing = RacingTableOperations.racing(ops,
        () -> StreamingCommits.record(new AppendFiles(ops).appendFile(zombieFile), "q-1", 3).commit());
    DataFile mine = StreamFixtures.dataFile(ops.refresh(), "eu", 1);
    AppendFiles append = StreamingCommits.record(
        new AppendFiles(StreamingCommits.guard(racing, "q-1", 3)).appendFile(mine), "q-1", 3);
    try {
      append.commit();
      fail("the batch committed twice");
    } catch (BatchAlreadyCommittedException e) {
      assertEquals(3, e.batchId());
      assertTrue(e.getMessage(), e.getMessage().contains("batch 3 of streaming query q-1"));
    }
    TableMetadata now = ops.refresh();
    int batches = 0;
    for (Snapshot s = now.currentSnapshot(); s != null; s = s.parentId() == null ? null : now.snapshot(s.parentId())) {
      batches += "3".equals(s.summary().get(StreamingCommits.EPOCH_ID)) ? 1 : 0;
    }
    assertEquals(1, batches);

    // a later batch passes the guard
    StreamingCommits.record(new AppendFiles(StreamingCommits.guard(ops, "q-1", 4)).appendFile(mine), "q-1", 4)
        .commit();
    assertEquals(Long.valueOf(4), StreamingCommits.lastCommittedBatch(ops.refresh(), "q-1"));
  }

  @Test
  public void summaryUsesIcebergKeys() {
    commitBatch("q-1", 7);
    Snapshot s = ops.refresh().currentSnapshot();
    assertEquals("q-1", s.summary().get("spark.sql.streaming.queryId"));
    assertEquals("7", s.summary().get("spark.sql.streaming.epochId"));
  }

  @Test
  public void committedBatchesAreFoundThroughOtherWritersCommits() {
    assertNull(StreamingCommits.lastCommittedBatch(ops.refresh(), "q-1"));
    assertFalse(StreamingCommits.isCommitted(ops.refresh(), "q-1", 0));
    DataFile first = commitBatch("q-1", 0);
    commitBatch("q-2", 5);
    // a compaction by another writer lands between the query's batches
    new RewriteFiles(ops).rewriteFile(first).addFile(StreamFixtures.dataFile(ops.refresh(), "eu", 1)).commit();

    TableMetadata now = ops.refresh();
    assertTrue(StreamingCommits.isCommitted(now, "q-1", 0));
    assertFalse("batch 1 of q-1 has not committed", StreamingCommits.isCommitted(now, "q-1", 1));
    assertTrue(StreamingCommits.isCommitted(now, "q-2", 5));
    assertTrue("earlier batches of a query are committed too", StreamingCommits.isCommitted(now, "q-2", 4));
    assertFalse(StreamingCommits.isCommitted(now, "q-2", 6));

    commitBatch("q-1", 1);
    assertEquals(Long.valueOf(1), StreamingCommits.lastCommittedBatch(ops.refresh(), "q-1"));
    assertTrue(StreamingCommits.isCommitted(ops.refresh(), "q-1", 1));
  }

  /** Complete mode (docs/streaming.md, 3): each batch replaces every live file, recorded and guarded as appends are. */
  @Test
  public void completeModeBatchReplacesEveryFileAndIsNotRepublished() {
    commitBatch("q-1", 0);
    commitBatch("other", 9);
    DataFile result = StreamFixtures.dataFile(ops.refresh(), "us", 2);
    StreamingCommits.record(new OverwriteFiles(StreamingCommits.guard(ops, "q-1", 1)).replaceAll().addFile(result),
        "q-1", 1).commit();
    TableMetadata now = ops.refresh();
    assertEquals("overwrite", now.currentSnapshot().operation());
    assertEquals("1", now.currentSnapshot().summary().get(StreamingCommits.EPOCH_ID));
    assertTrue(StreamingCommits.isCommitted(now, "q-1", 1));

    // a replay of batch 1 (its checkpoint commit was lost) publishes nothing
    DataFile replayed = StreamFixtures.dataFile(now, "us", 2);
    try {
      StreamingCommits.record(new OverwriteFiles(StreamingCommits.guard(ops, "q-1", 1)).replaceAll()
          .addFile(replayed), "q-1", 1).commit();
      fail("the batch committed twice");
    } catch (BatchAlreadyCommittedException e) {
      assertEquals(1, e.batchId());
    }
    assertEquals(now.currentSnapshot().snapshotId(), ops.refresh().currentSnapshot().snapshotId());
  }

  @Test
  public void updateModeErrorNamesTheTableAndWhatToDo() {
    FloeException e = StreamingErrors.updateModeUnsupported("floe.db.t", "q-1");
    assertEquals(ErrorClass.FLOE_UNSUPPORTED, e.errorClass());
    assertTrue(e.getMessage(), e.getMessage().contains("to table floe.db.t in update output mode"));
    assertTrue(e.getMessage(), e.getMessage().contains("foreachBatch with MERGE INTO floe.db.t"));
  }
}
