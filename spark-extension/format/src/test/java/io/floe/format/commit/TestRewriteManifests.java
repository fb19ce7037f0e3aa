package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.Metrics;
import io.floe.format.manifest.PartitionFieldSummary;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestRewriteManifests {
  private static final List<String> REGIONS = List.of("ap", "eu", "sa", "us");

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /** Twelve one-file appends round-robin over four regions (one manifest each), then one delete. */
  private FileSystemTableOperations table(int formatVersion) throws IOException {
    return table(formatVersion, true);
  }

  private FileSystemTableOperations table(int formatVersion, boolean deleteOne) throws IOException {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.newFolder().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of(), formatVersion);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      DataFile f = CommitFixtures.dataFile(ops.refresh(), REGIONS.get(i % REGIONS.size()), i + 1);
      files.add(f);
      new AppendFiles(ops).appendFile(f).commit();
    }
    if (deleteOne) {
      new OverwriteFiles(ops).deleteFile(files.get(5).path()).commit();
    }
    return ops;
  }

  private static void setTargetSize(FileSystemTableOperations ops, long bytes) {
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base)
        .setProperties(Map.of(RewriteManifests.TARGET_SIZE_BYTES, Long.toString(bytes))).build());
  }

  private static List<ManifestFile> dataManifests(FileIO io, Snapshot snapshot) {
    List<ManifestFile> out = new ArrayList<>();
    for (ManifestFile m : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
      if (m.content() == ManifestContent.DATA) {
        out.add(m);
      }
    }
    return out;
  }

  /** Live entries by path, as "status snapshot dataSeq fileSeq records firstRowId". */
  private static Map<String, String> liveEntries(FileSystemTableOperations ops, Snapshot snapshot) {
    Map<String, String> out = new TreeMap<>();
    for (ManifestFile m : dataManifests(ops.io(), snapshot)) {
      for (ManifestEntry<DataFile> e : ManifestReader.readData(ops.io().newInputFile(m.path()), m,
          ops.current().specsById()).stream().filter(ManifestEntry::isLive).toList()) {
        String previous = out.put(e.file().path(), e.snapshotId() + " " + e.dataSequenceNumber() + " "
            + e.fileSequenceNumber() + " " + e.file().recordCount() + " " + e.file().firstRowId());
        assertNull("file listed twice: " + e.file().path(), previous);
      }
    }
    return out;
  }

  private static String region(ByteBuffer bound) {
    return StandardCharsets.UTF_8.decode(bound.duplicate()).toString();
  }

  @Test
  public void keepsEveryLiveEntryWithItsSnapshotAndSequenceNumbers() throws IOException {
    for (int version : new int[] {2, 3}) {
      FileSystemTableOperations ops = table(version);
      Snapshot before = ops.refresh().currentSnapshot();
      Map<String, String> entriesBefore = liveEntries(ops, before);
      assertEquals(11, entriesBefore.size());

      RewriteManifests.Result result = new RewriteManifests(ops).commit();

      Snapshot after = ops.refresh().currentSnapshot();
      assertEquals(result.snapshot(), after);
      assertEquals("replace", after.operation());
      assertEquals(before.snapshotId(), (long) after.parentId());
      assertEquals(entriesBefore, liveEntries(ops, after));
      assertEquals(12, result.rewrittenManifests().size());
      assertEquals(1, result.addedManifests().size());
      assertEquals(1, dataManifests(ops.io(), after).size());
      for (ManifestFile m : dataManifests(ops.io(), after)) {
        for (ManifestEntry<?> e : ManifestReader.read(ops.io().newInputFile(m.path()), m, ops.current().specsById())) {
          assertEquals(ManifestEntry.Status.EXISTING, e.status());
        }
        assertEquals(after.sequenceNumber(), m.sequenceNumber());
        assertEquals(1, m.minSequenceNumber());
      }
      Map<String, String> summary = after.summary();
      assertEquals("1", summary.get("manifests-created"));
      assertEquals("12", summary.get("manifests-replaced"));
      assertEquals("0", summary.get("manifests-kept"));
      assertEquals("11", summary.get("entries-processed"));
      for (String key : List.of("total-records", "total-data-files", "total-files-size")) {
        assertEquals(key, before.summary().get(key), summary.get(key));
      }
      // the table as of the snapshot before still lists the same files
      assertEquals(entriesBefore, liveEntries(ops, ops.current().snapshot(before.snapshotId())));
    }
  }

  @Test
  public void clustersEntriesByPartitionWithNarrowSummaries() throws IOException {
    FileSystemTableOperations ops = table(2);
    long total = dataManifests(ops.io(), ops.refresh().currentSnapshot()).stream()
        .mapToLong(ManifestFile::length).sum();
    setTargetSize(ops, total / 4 + 1);

    RewriteManifests.Result result = new RewriteManifests(ops).commit();

    List<ManifestFile> manifests = dataManifests(ops.io(), ops.refresh().currentSnapshot());
    assertEquals(4, manifests.size());
    assertEquals(4, result.addedManifests().size());
    List<String> ranges = new ArrayList<>();
    for (ManifestFile m : manifests) {
      List<ManifestEntry<?>> entries = ManifestReader.read(ops.io().newInputFile(m.path()), m,
          ops.current().specsById());
      String min = null;
      String max = null;
      for (ManifestEntry<?> e : entries) {
        String r = (String) e.file().partition().get(0);
        min = min == null || r.compareTo(min) < 0 ? r : min;
        max = max == null || r.compareTo(max) > 0 ? r : max;
      }
      PartitionFieldSummary summary = m.partitions().get(0);
      assertEquals(min, region(summary.lowerBound()));
      assertEquals(max, region(summary.upperBound()));
      ranges.add(min + ".." + max);
    }
    // 11 entries, sorted by region (3 ap, 2 eu, 3 sa, 3 us), cut into runs of 3,3,3,2
    assertEquals(List.of("ap..ap", "eu..sa", "sa..us", "us..us"), ranges);
  }

  @Test
  public void secondRewriteFindsNothingToDo() throws IOException {
    FileSystemTableOperations ops = table(2);
    new RewriteManifests(ops).commit();
    int snapshots = ops.refresh().snapshots().size();

    RewriteManifests.Result again = new RewriteManifests(ops).commit();

    assertNull(again.snapshot());
    assertTrue(again.rewrittenManifests().isEmpty());
    assertTrue(again.addedManifests().isEmpty());
    assertEquals(snapshots, ops.refresh().snapshots().size());
  }

  @Test
  public void concurrentAppendDuringTheRewriteIsKept() throws IOException {
    FileSystemTableOperations ops = table(2, false);
    DataFile late = CommitFixtures.dataFile(ops.refresh(), "eu", 7);
    TableOperations racing =
        RacingTableOperations.racing(ops, () -> new AppendFiles(ops).appendFile(late).commit());

    RewriteManifests.Result result = new RewriteManifests(racing).commit();

    Snapshot after = ops.refresh().currentSnapshot();
    assertEquals(result.snapshot(), after);
    assertEquals("replace", after.operation());
    Map<String, String> live = liveEntries(ops, after);
    assertEquals(13, live.size());
    assertTrue("the concurrently appended file is lost", live.containsKey(late.path()));
    // the replaced manifests were all still current: the written ones are reused, the new one kept
    assertEquals(12, result.rewrittenManifests().size());
    assertEquals("1", after.summary().get("manifests-kept"));
    assertEquals("12", after.summary().get("entries-processed"));
    assertEquals("85", after.summary().get("total-records"));
  }

  @Test
  public void concurrentAppendThatDropsAReplacedManifestIsReplanned() throws IOException {
    FileSystemTableOperations ops = table(2);
    DataFile late = CommitFixtures.dataFile(ops.refresh(), "eu", 7);
    TableOperations racing =
        RacingTableOperations.racing(ops, () -> new AppendFiles(ops).appendFile(late).commit());

    RewriteManifests.Result result = new RewriteManifests(racing).commit();

    // the append dropped the manifest holding only the deleted entry, so the rewrite was planned again
    Map<String, String> live = liveEntries(ops, ops.refresh().currentSnapshot());
    assertEquals(12, live.size());
    assertTrue("the concurrently appended file is lost", live.containsKey(late.path()));
    assertEquals(12, result.rewrittenManifests().size());
    assertEquals("12", ops.current().currentSnapshot().summary().get("entries-processed"));
    assertEquals("79", ops.current().currentSnapshot().summary().get("total-records"));
  }

  @Test
  public void concurrentDeleteOfARewrittenFileIsReplannedNotResurrected() throws IOException {
    FileSystemTableOperations ops = table(2);
    String victim = liveEntries(ops, ops.refresh().currentSnapshot()).keySet().iterator().next();
    TableOperations racing =
        RacingTableOperations.racing(ops, () -> new OverwriteFiles(ops).deleteFile(victim).commit());

    new RewriteManifests(racing).commit();

    Map<String, String> live = liveEntries(ops, ops.refresh().currentSnapshot());
    assertEquals(10, live.size());
    assertFalse("a concurrently deleted file came back", live.containsKey(victim));
    assertEquals("replace", ops.current().currentSnapshot().operation());
  }

  @Test
  public void unknownSpecIdIsRefusedWithTheKnownOnes() throws IOException {
    FileSystemTableOperations ops = table(2);
    try {
      new RewriteManifests(ops).specId(7).commit();
      fail("an unknown spec id must be refused");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("db.t") && e.getMessage().contains("7")
          && e.getMessage().contains("[0]"));
    }
    assertNotNull(ops.refresh().currentSnapshot());
  }

  @Test
  public void specIdLimitsTheRewriteToThatSpecsManifests() throws IOException {
    FileSystemTableOperations ops = table(2, false);
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setDefaultPartitionSpec(PartitionSpec.unpartitioned()).build());
    PartitionSpec unpartitioned = ops.refresh().spec();
    assertEquals(1, unpartitioned.specId());
    for (int i = 0; i < 3; i++) {
      new AppendFiles(ops).appendFile(DataFile.builder(unpartitioned)
          .withPath(ops.current().location() + "/data/u" + i + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withPartition(PartitionData.empty())
          .withRecordCount(2)
          .withFileSizeInBytes(200)
          .withMetrics(Metrics.empty(2))
          .build()).commit();
    }
    Map<String, String> entries = liveEntries(ops, ops.current().currentSnapshot());

    RewriteManifests.Result one = new RewriteManifests(ops).specId(1).commit();
    assertEquals(3, one.rewrittenManifests().size());
    assertTrue(one.rewrittenManifests().stream().allMatch(m -> m.partitionSpecId() == 1));
    assertEquals("12", ops.refresh().currentSnapshot().summary().get("manifests-kept"));

    RewriteManifests.Result zero = new RewriteManifests(ops).specId(0).commit();
    assertEquals(12, zero.rewrittenManifests().size());
    assertEquals("1", ops.refresh().currentSnapshot().summary().get("manifests-kept"));
    List<ManifestFile> manifests = dataManifests(ops.io(), ops.current().currentSnapshot());
    assertEquals(List.of(0, 1), manifests.stream().map(ManifestFile::partitionSpecId).sorted().toList());
    assertEquals(entries, liveEntries(ops, ops.current().currentSnapshot()));

    assertNull(new RewriteManifests(ops).commit().snapshot());
  }

  @Test
  public void contiguousManifestsAreRewrittenOnlyWhenThatHalvesTheirNumber() {
    TableMetadata metadata = TableMetadata.newTableMetadata(CommitFixtures.SCHEMA,
        PartitionSpec.builderFor(CommitFixtures.SCHEMA).identity("region").build(), SortOrder.unsorted(),
        "file:///t", Map.of(), 2);
    Map<String, List<ManifestEntry<DataFile>>> contiguous = new LinkedHashMap<>();
    for (String region : List.of("a", "b", "c", "d", "e")) {
      contiguous.put(region, List.of(entry(metadata, region), entry(metadata, region)));
    }
    assertFalse("five small manifests fit in one", ManifestClustering.isClustered(contiguous, Set.of(), 1));
    assertTrue(ManifestClustering.isClustered(contiguous, Set.of(), 5));
    assertFalse("five manifests where two would do", ManifestClustering.isClustered(contiguous, Set.of(), 2));
    assertTrue("five manifests where three would do", ManifestClustering.isClustered(contiguous, Set.of(), 3));
    assertFalse("a deleted entry to drop", ManifestClustering.isClustered(contiguous, Set.of("a"), 5));

    Map<String, List<ManifestEntry<DataFile>>> interleaved = new LinkedHashMap<>();
    interleaved.put("m1", List.of(entry(metadata, "a"), entry(metadata, "c")));
    interleaved.put("m2", List.of(entry(metadata, "b")));
    assertFalse(ManifestClustering.isClustered(interleaved, Set.of(), 2));
  }

  private static ManifestEntry<DataFile> entry(TableMetadata metadata, String region) {
    return new ManifestEntry<>(ManifestEntry.Status.EXISTING, 1L, 1L, 1L, CommitFixtures.dataFile(metadata, region, 1));
  }
}
