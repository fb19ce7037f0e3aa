package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.RacingTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A data commit adds a segment to every sync index in the same metadata commit, and never fails because of one. */
public class TestIndexSync {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations table() {
    return IndexFixtures.newTable(temp.getRoot());
  }

  private static void createIndex(TableOperations ops, String name, boolean deferred) {
    IndexListCommit.commit(ops, "db.t", (current, base) -> {
      TableIndex.Builder index = TableIndex.builder(name, IndexType.BTREE, 1);
      if (deferred) {
        index.setProperty(TableIndex.MAINTENANCE, TableIndex.MAINTENANCE_DEFERRED);
      }
      return IndexList.buildFrom(current).add(index.build()).build();
    });
  }

  private static DataFile file(TableMetadata base, String name) {
    return DataFile.builder(base.spec()).withPath(base.location() + "/data/" + name)
        .withFormat(FileFormat.PARQUET).withRecordCount(2).withFileSizeInBytes(10)
        .withMetrics(Metrics.empty(2)).build();
  }

  /** Appends one file holding {@code values} in field 1, with index sync, through {@code ops}. */
  private static void appendWithSync(FileSystemTableOperations owner, TableOperations ops, String name,
      List<Object> values) {
    TableMetadata base = owner.refresh();
    DataFile f = file(base, name);
    new AppendFiles(ops).appendFile(f)
        .amendMetadata(new IndexSync(owner.io(), "db.t", owner.metadataRoot() + "/metadata",
            Map.of(1, List.of(FileValues.of(f.path(), values)))))
        .commit();
  }

  private static IndexList indexes(FileSystemTableOperations ops) {
    return IndexListFiles.read(ops.io(), "db.t", ops.refresh().properties());
  }

  private long segmentFiles() {
    File root = new File(temp.getRoot(), "db/t/metadata/_floe_indexes");
    return Files.exists(root.toPath()) ? Arrays.stream(Objects.requireNonNull(root.listFiles()))
        .filter(File::isDirectory).mapToLong(d -> Objects.requireNonNull(d.list()).length).sum() : 0;
  }

  @Test
  public void appendAddsASegmentToSyncIndexesInTheSnapshotCommit() {
    FileSystemTableOperations ops = table();
    createIndex(ops, "by_id", false);
    createIndex(ops, "later", true);
    appendWithSync(ops, ops, "a.parquet", List.of(1L, 2L));
    TableMetadata after = ops.refresh();
    IndexSegment segment = indexes(ops).index("by_id").segments().get(0);
    assertEquals(1, segment.coveredFileCount());
    assertEquals(2, segment.entryCount());
    assertEquals(after.currentSnapshot().snapshotId(), segment.snapshotId());
    assertEquals(after.currentSnapshot().sequenceNumber(), segment.sequenceNumber());
    assertTrue(indexes(ops).index("later").segments().isEmpty()); // deferred: left to rewrite_index
    appendWithSync(ops, ops, "b.parquet", List.of(3L));
    assertEquals(2, indexes(ops).index("by_id").segments().size());
  }

  @Test
  public void retryAfterALostRaceAddsTheSegmentOnceAndDeletesTheLostAttemptsFiles() {
    FileSystemTableOperations ops = table();
    createIndex(ops, "by_id", false);
    TableOperations racing = RacingTableOperations.racing(ops,
        () -> appendWithSync(ops, ops, "first.parquet", List.of(7L)));
    appendWithSync(ops, racing, "second.parquet", List.of(8L));
    assertEquals(2, ops.refresh().snapshots().size());
    assertEquals(2, indexes(ops).index("by_id").segments().size());
    assertEquals(2, segmentFiles()); // the lost attempt's segment is gone
  }

  @Test
  public void indexDroppedConcurrentlyLosesTheSegmentAndTheDataCommits() {
    FileSystemTableOperations ops = table();
    createIndex(ops, "by_id", false);
    createIndex(ops, "kept", false);
    TableOperations racing = RacingTableOperations.racing(ops, () -> IndexListCommit.commit(ops, "db.t",
        (current, base) -> IndexList.buildFrom(current).remove("by_id").build()));
    appendWithSync(ops, racing, "a.parquet", List.of(1L));
    assertNotNull(ops.refresh().currentSnapshot());
    assertNull(indexes(ops).index("by_id"));
    assertEquals(1, indexes(ops).index("kept").segments().size());
  }

  @Test
  public void unreadableIndexListLeavesTheDataCommitWithoutSegments() throws IOException {
    FileSystemTableOperations ops = table();
    createIndex(ops, "by_id", false);
    String list = ops.refresh().properties().get(TableProperties.INDEXES);
    Files.writeString(new File(java.net.URI.create(list)).toPath(), "{not json");
    appendWithSync(ops, ops, "a.parquet", List.of(1L));
    TableMetadata after = ops.refresh();
    assertNotNull(after.currentSnapshot());
    assertEquals(list, after.properties().get(TableProperties.INDEXES));
    assertEquals(0, segmentFiles());
  }
}
