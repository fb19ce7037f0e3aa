package io.floe.format.stream;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.TableMetadata;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The change feed's options: Iceberg's names, clear errors, and the snapshot range they select. */
public class TestChangelogOptions {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static void assertRejected(Map<String, String> options, String expected) {
    try {
      ChangelogOptions.parse("db.t", options);
      fail("options " + options + " must be rejected");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_OPTION_INVALID, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains(expected));
    }
  }

  @Test
  public void parsesIcebergNamesCaseInsensitively() {
    ChangelogOptions o = ChangelogOptions.parse("db.t", Map.of("Start-Snapshot-Id", "12", "end-snapshot-id", " 34 "));
    assertEquals(Long.valueOf(12), o.startSnapshotId());
    assertEquals(Long.valueOf(34), o.endSnapshotId());
    assertNull(o.startTimestampMillis());
  }

  @Test
  public void rejectsUnknownNamesBadValuesAndConflicts() {
    assertRejected(Map.of("start-snapshot", "1"), "unknown option 'start-snapshot'; the change feed options are "
        + "start-snapshot-id, end-snapshot-id, start-timestamp, end-timestamp");
    assertRejected(Map.of("end-snapshot-id", "abc"), "invalid end-snapshot-id 'abc', expected a whole number");
    assertRejected(Map.of("start-snapshot-id", "1", "start-timestamp", "2"),
        "set either start-snapshot-id or start-timestamp, not both");
    assertRejected(Map.of("start-timestamp", "20", "end-timestamp", "10"), "start-timestamp 20 is after end-timestamp 10");
  }

  @Test
  public void timestampsSelectSnapshotsCommittedAfterTheStartAndUpToTheEnd() throws InterruptedException {
    FileSystemTableOperations ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    long s1 = StreamFixtures.append(ops, StreamFixtures.dataFile(ops.refresh(), "eu", 1));
    Thread.sleep(5);
    long s2 = StreamFixtures.append(ops, StreamFixtures.dataFile(ops.refresh(), "eu", 1));
    Thread.sleep(5);
    long s3 = StreamFixtures.append(ops, StreamFixtures.dataFile(ops.refresh(), "eu", 1));
    TableMetadata m = ops.refresh();
    long t1 = m.snapshot(s1).timestampMillis();
    long t2 = m.snapshot(s2).timestampMillis();
    long t3 = m.snapshot(s3).timestampMillis();
    ChangelogOptions.Range r = ChangelogOptions.parse("db.t", Map.of("start-timestamp", Long.toString(t1),
        "end-timestamp", Long.toString(t2))).resolve(m);
    assertFalse(r.empty());
    assertEquals("a snapshot committed at the start time is not in the range", Long.valueOf(s1), r.startExclusive());
    assertEquals(Long.valueOf(s2), r.endInclusive());
    r = ChangelogOptions.parse("db.t", Map.of("start-timestamp", Long.toString(t1 - 1))).resolve(m);
    assertNull("from before the first snapshot: from the beginning", r.startExclusive());
    assertNull(r.endInclusive());
    assertTrue(ChangelogOptions.parse("db.t", Map.of("start-timestamp", Long.toString(t3))).resolve(m).empty());
    assertTrue(ChangelogOptions.parse("db.t", Map.of("end-timestamp", Long.toString(t1 - 1))).resolve(m).empty());
  }

  @Test
  public void aStartAfterTheEndIsAClearError() {
    FileSystemTableOperations ops = StreamFixtures.create(temp.getRoot().toPath(), 2);
    long s1 = StreamFixtures.append(ops, StreamFixtures.dataFile(ops.refresh(), "eu", 1));
    long s2 = StreamFixtures.append(ops, StreamFixtures.dataFile(ops.refresh(), "eu", 1));
    try {
      ChangelogScan.of("db.t", ops.io(), ops.refresh()).planTasks(s2, s1);
      fail("a reversed range must fail");
    } catch (FloeException e) {
      assertEquals(ErrorClass.FLOE_OPTION_INVALID, e.errorClass());
      assertTrue(e.getMessage(), e.getMessage().contains("start-snapshot-id " + s2 + " is after end-snapshot-id " + s1));
    }
  }
}
