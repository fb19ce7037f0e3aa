package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.maintenance.CleanupPlan;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.maintenance.ExpiredFileCleanup;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Appends merge small data manifests (Iceberg's merge append) and read none of the parent's otherwise. */
public class TestManifestMerge {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemCatalog catalog() {
    return CommitFixtures.catalog(temp.getRoot().toPath());
  }

  private static List<ManifestFile> dataManifests(FileSystemTableOperations ops) {
    Snapshot current = ops.refresh().currentSnapshot();
    return ManifestLists.read(ops.io().newInputFile(current.manifestListLocation())).stream()
        .filter(m -> m.content() == ManifestContent.DATA).collect(Collectors.toList());
  }

  /** The current snapshot's live entries by data file path; fails when a file is listed twice. */
  private static Map<String, ManifestEntry> liveEntries(FileSystemTableOperations ops) {
    Map<String, ManifestEntry> out = new HashMap<>();
    for (ManifestFile m : dataManifests(ops)) {
      for (ManifestEntry e : ManifestReader.liveEntries(ops.io().newInputFile(m.path()), m, ops.current().specsById())) {
        assertNull("file listed twice: " + e.file().path(), out.put(e.file().path(), e));
      }
    }
    return out;
  }

  /** Manifest files on disk that no snapshot's manifest list references (left by lost attempts). */
  private static Set<String> orphanManifests(FileSystemTableOperations ops) throws IOException {
    TableMetadata metadata = ops.refresh();
    Set<String> referenced = new HashSet<>();
    for (Snapshot s : metadata.snapshots()) {
      for (ManifestFile m : ManifestLists.read(ops.io().newInputFile(s.manifestListLocation()))) {
        referenced.add(fileName(m.path()));
      }
    }
    Path dir = Paths.get(URI.create(metadata.location() + "/metadata"));
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".avro") && !n.startsWith("snap-") && !referenced.contains(n))
          .collect(Collectors.toSet());
    }
  }

  private static String fileName(String location) {
    return location.substring(location.lastIndexOf('/') + 1);
  }

  @Test
  public void appendsMergeSmallManifestsAndKeepEveryEntrysSnapshotAndSequenceNumbers() throws IOException {
    FileSystemTableOperations ops = CommitFixtures.create(catalog(), "t",
        Map.of(ManifestMerger.MIN_COUNT_TO_MERGE, "4"));
    Map<String, Snapshot> appendedBy = new HashMap<>();
    for (int i = 0; i < 21; i++) {
      DataFile f = CommitFixtures.dataFile(ops.refresh(), i % 2 == 0 ? "eu" : "us", i + 1);
      Snapshot s = new AppendFiles(ops).appendFile(f).commit();
      appendedBy.put(f.path(), s);
      assertTrue("append " + (i + 1) + " left " + dataManifests(ops).size() + " data manifests",
          dataManifests(ops).size() < 4);
    }
    Map<String, ManifestEntry> live = liveEntries(ops);
    assertEquals(appendedBy.keySet(), live.keySet());
    for (Map.Entry<String, ManifestEntry> e : live.entrySet()) {
      Snapshot s = appendedBy.get(e.getKey());
      assertEquals(Long.valueOf(s.snapshotId()), e.getValue().snapshotId());
      assertEquals(Long.valueOf(s.sequenceNumber()), e.getValue().dataSequenceNumber());
      assertEquals(Long.valueOf(s.sequenceNumber()), e.getValue().fileSequenceNumber());
    }
    // the 4th append merged its new manifest with the 3 before it
    Snapshot fourth = ops.refresh().snapshots().get(3);
    assertEquals("1", fourth.summary().get("manifests-created"));
    assertEquals("0", fourth.summary().get("manifests-kept"));
    assertEquals("3", fourth.summary().get("manifests-replaced"));
    assertEquals("231", ops.refresh().currentSnapshot().summary().get("total-records"));
    assertEquals(Set.of(), orphanManifests(ops));
  }

  @Test
  public void mergeDisabledKeepsOneManifestPerAppend() {
    FileSystemTableOperations ops = CommitFixtures.create(catalog(), "t",
        Map.of(ManifestMerger.ENABLED, "false", ManifestMerger.MIN_COUNT_TO_MERGE, "2"));
    for (int i = 0; i < 6; i++) {
      new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
    }
    assertEquals(6, dataManifests(ops).size());
    assertFalse(ops.refresh().currentSnapshot().summary().containsKey("manifests-replaced"));
    assertEquals(6, liveEntries(ops).size());
  }

  @Test
  public void appendReadsNoDataManifestOfItsParent() throws IOException {
    FileSystemTableOperations ops = CommitFixtures.create(catalog(), "t", Map.of(ManifestMerger.ENABLED, "false"));
    for (int i = 0; i < 3; i++) {
      new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "eu", 1)).commit();
    }
    for (ManifestFile m : dataManifests(ops)) {
      ops.io().deleteFile(m.path());
    }
    Snapshot appended = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 1)).commit();
    assertNotNull(appended);
    assertEquals(4, dataManifests(ops).size());
  }

  @Test
  public void concurrentAppendsWithMergingAllLandOnceWithTheirSequenceNumbers() throws Exception {
    FileSystemCatalog catalog = catalog();
    FileSystemTableOperations created = CommitFixtures.create(catalog, "t", Map.of(
        ManifestMerger.MIN_COUNT_TO_MERGE, "3", "commit.retry.num-retries", "50",
        "commit.retry.min-wait-ms", "1", "commit.retry.max-wait-ms", "20"));
    int threads = 3;
    int commitsPerThread = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<String>>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        FileSystemTableOperations ops = catalog.loadTable(TableIdentifier.of(List.of("db"), "t"));
        List<String> acked = new ArrayList<>();
        for (int i = 0; i < commitsPerThread; i++) {
          DataFile f = CommitFixtures.dataFile(ops.refresh(), "eu", 1);
          new AppendFiles(ops).appendFile(f).commit();
          acked.add(f.path());
        }
        return acked;
      }));
    }
    Set<String> acked = new HashSet<>();
    for (Future<List<String>> f : futures) {
      acked.addAll(f.get(120, TimeUnit.SECONDS));
    }
    pool.shutdown();
    Map<String, ManifestEntry> live = liveEntries(created);
    assertEquals(acked, live.keySet());
    TableMetadata current = created.refresh();
    for (ManifestEntry e : live.values()) {
      Snapshot s = current.snapshot(e.snapshotId());
      assertEquals("1", s.summary().get("added-data-files"));
      assertEquals(Long.valueOf(s.sequenceNumber()), e.dataSequenceNumber());
    }
    assertTrue(dataManifests(created).size() < 3);
    assertEquals(Set.of(), orphanManifests(created));
  }

  @Test
  public void expireFastPlanMatchesReferencePlanOnMergedHistories() {
    FileSystemTableOperations ops = CommitFixtures.create(catalog(), "t",
        Map.of(ManifestMerger.MIN_COUNT_TO_MERGE, "3"));
    List<String> live = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      if (i % 5 == 4) {
        new OverwriteFiles(ops).deleteFile(live.remove(i % live.size())).commit();
      } else {
        DataFile f = CommitFixtures.dataFile(ops.refresh(), i % 2 == 0 ? "eu" : "us", 1);
        new AppendFiles(ops).appendFile(f).commit();
        live.add(f.path());
      }
    }
    TableMetadata before = ops.refresh();
    int fastPlans = 0;
    for (Snapshot cut : before.snapshots()) {
      TableMetadata after = new ExpireSnapshots(ops).now(cut.timestampMillis() + 1_000_000)
          .expireOlderThan(cut.timestampMillis() + 1).retainLast(1).apply(before);
      CleanupPlan reference = ExpiredFileCleanup.reference(ops.io(), before, after);
      CleanupPlan fast = ExpiredFileCleanup.fast(ops.io(), before, after);
      if (fast != null) {
        fastPlans++;
        assertEquals("expiring up to snapshot " + cut.snapshotId(), reference.files(), fast.files());
      }
    }
    assertTrue("the fast plan applied to " + fastPlans + " cuts", fastPlans > 5);
  }

  @Test
  public void binsArePackedFromTheEndWithoutReordering() {
    List<ManifestFile> manifests = new ArrayList<>();
    for (long length : new long[] {10, 40, 30, 50, 20, 90}) {
      manifests.add(ManifestFile.builder("m" + length).withLength(length).build());
    }
    List<List<ManifestFile>> bins = ManifestMerger.packFromEnd(manifests, 100);
    List<List<Long>> lengths = bins.stream()
        .map(b -> b.stream().map(ManifestFile::length).collect(Collectors.toList())).collect(Collectors.toList());
    assertEquals(List.of(List.of(10L, 40L), List.of(30L, 50L, 20L), List.of(90L)), lengths);
  }
}
