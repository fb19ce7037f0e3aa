package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.expr.Expressions;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.ManifestCache;
import io.floe.format.scan.ManifestListCache;
import io.floe.format.scan.ScanPlan;
import io.floe.format.scan.TableScan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Planning through a {@link ManifestCache} and a {@link ManifestListCache}: no manifest or manifest
 * list decoded twice, never a stale or different plan.
 */
public class TestPlanningManifestCache {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations table() {
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    for (String region : new String[] {"eu", "us", "eu"}) {
      new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), region, 10)).commit();
    }
    return ops;
  }

  private static Set<String> paths(ScanPlan plan) {
    Set<String> out = new TreeSet<>();
    for (FileScanTask t : plan.tasks()) {
      out.add(t.file().path() + "@" + t.dataSequenceNumber());
    }
    return out;
  }

  private static ScanPlan plan(FileSystemTableOperations ops, ManifestCache cache, Snapshot snapshot, String region) {
    TableMetadata metadata = ops.refresh();
    TableScan scan = TableScan.of(ops.io(), metadata).manifestCache(cache)
        .useSnapshot(snapshot == null ? metadata.currentSnapshot() : snapshot);
    return (region == null ? scan : scan.filter(Expressions.equal("region", region))).planFiles();
  }

  @Test
  public void planningAnUnchangedSnapshotAgainDecodesNoManifest() {
    FileSystemTableOperations ops = table();
    ManifestCache cache = new ManifestCache(1L << 30);
    ScanPlan first = plan(ops, cache, null, null);
    assertEquals(3, first.tasks().size());
    assertEquals(3, cache.misses());
    assertEquals(0, cache.hits());

    ScanPlan second = plan(ops, cache, null, null);
    assertEquals(3, cache.misses());
    assertEquals(3, cache.hits());
    assertEquals(paths(first), paths(second));
    assertEquals(first.metrics(), second.metrics());

    // pruning runs on the kept entries exactly as on freshly decoded ones
    ScanPlan eu = plan(ops, cache, null, "eu");
    assertEquals(paths(plan(ops, new ManifestCache(0), null, "eu")), paths(eu));
    assertEquals(2, eu.tasks().size());
    assertEquals(3, cache.misses());
  }

  @Test
  public void aChangedTableIsPlannedFromItsNewManifestsNeverFromStaleEntries() {
    FileSystemTableOperations ops = table();
    ManifestCache cache = new ManifestCache(1L << 30);
    Snapshot before = ops.refresh().currentSnapshot();
    plan(ops, cache, null, null);

    DataFile us = CommitFixtures.dataFile(ops.refresh(), "us", 7);
    new OverwriteFiles(ops).addFile(us).replaceAddedPartitions().commit();
    ScanPlan after = plan(ops, cache, null, null);
    assertEquals(paths(plan(ops, new ManifestCache(0), null, null)), paths(after));
    assertEquals(3, after.tasks().size());
    assertTrue(paths(after).stream().anyMatch(p -> p.startsWith(us.path() + "@")));

    // the older snapshot still plans its own files, with its own inherited sequence numbers
    assertEquals(paths(plan(ops, new ManifestCache(0), before, null)), paths(plan(ops, cache, before, null)));
  }

  @Test
  public void theCacheKeepsNoMoreThanItsWeight() {
    FileSystemTableOperations ops = table();
    ManifestCache unbounded = new ManifestCache(1L << 30);
    plan(ops, unbounded, null, null);
    long oneManifest = unbounded.weight() / 3 + 1;

    ManifestCache small = new ManifestCache(oneManifest);
    ScanPlan planned = plan(ops, small, null, null);
    assertEquals(3, planned.tasks().size());
    assertTrue("kept " + small.size(), small.size() <= 1);
    assertTrue(small.weight() <= oneManifest);

    ManifestCache none = new ManifestCache(0);
    assertEquals(paths(planned), paths(plan(ops, none, null, null)));
    assertEquals(0, none.size());
  }

  @Test
  public void manifestsUnusedForAMinuteAreDropped() {
    FileSystemTableOperations ops = table();
    long[] now = {0};
    ManifestCache cache = new ManifestCache(1L << 30, () -> now[0]);
    plan(ops, cache, null, null);
    assertEquals(3, cache.size());
    long full = cache.weight();

    now[0] += ManifestCache.IDLE_NANOS - 1;
    plan(ops, cache, null, null);
    assertEquals("used again within the minute: kept", 3, cache.hits());
    assertEquals(3, cache.size());

    // a new append: the next plan lists one more manifest and uses all four
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 10)).commit();
    now[0] += ManifestCache.IDLE_NANOS - 1;
    plan(ops, cache, null, null);
    assertEquals(4, cache.size());

    // planning an older snapshot alone for a minute: the newest manifest goes, nothing else
    Snapshot before = ops.refresh().snapshots().get(2);
    now[0] += ManifestCache.IDLE_NANOS / 2;
    plan(ops, cache, before, null);
    now[0] += ManifestCache.IDLE_NANOS / 2 + 1;
    ScanPlan older = plan(ops, cache, before, null);
    assertEquals(3, cache.size());
    assertEquals(full, cache.weight());
    assertEquals(paths(plan(ops, new ManifestCache(0), before, null)), paths(older));

    now[0] += ManifestCache.IDLE_NANOS;
    ScanPlan latest = plan(ops, cache, null, null);
    assertEquals(4, latest.tasks().size());
    assertEquals("everything idle was dropped, then the latest plan's four decoded again", 4, cache.size());
  }

  // the manifest list, through a ManifestListCache: no list decoded twice, each snapshot its own

  private static ScanPlan planWithLists(FileSystemTableOperations ops, ManifestListCache lists, Snapshot snapshot,
      String region) {
    TableMetadata metadata = ops.refresh();
    TableScan scan = TableScan.of(ops.io(), metadata).manifestCache(new ManifestCache(0)).manifestListCache(lists)
        .useSnapshot(snapshot == null ? metadata.currentSnapshot() : snapshot);
    return (region == null ? scan : scan.filter(Expressions.equal("region", region))).planFiles();
  }

  @Test
  public void planningAnUnchangedSnapshotAgainReadsNoManifestList() throws Exception {
    FileSystemTableOperations ops = table();
    ManifestListCache lists = new ManifestListCache(1L << 30);
    ScanPlan first = planWithLists(ops, lists, null, null);
    assertEquals(3, first.tasks().size());
    assertEquals(1, lists.misses());

    // the kept list is used even when the file is gone: it is never read again
    Path list = Path.of(java.net.URI.create(ops.refresh().currentSnapshot().manifestListLocation()));
    byte[] bytes = Files.readAllBytes(list);
    Files.delete(list);
    ScanPlan second = planWithLists(ops, lists, null, "eu");
    assertEquals(1, lists.misses());
    assertEquals(1, lists.hits());
    Files.write(list, bytes);
    assertEquals(paths(planWithLists(ops, new ManifestListCache(0), null, "eu")), paths(second));
    assertEquals(2, second.tasks().size());
    assertEquals(paths(first), paths(planWithLists(ops, lists, null, null)));
  }

  @Test
  public void eachSnapshotIsPlannedFromItsOwnList() {
    FileSystemTableOperations ops = table();
    ManifestListCache lists = new ManifestListCache(1L << 30);
    Snapshot before = ops.refresh().currentSnapshot();
    planWithLists(ops, lists, null, null);
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 7)).commit();

    ScanPlan after = planWithLists(ops, lists, null, null);
    assertEquals(2, lists.misses());
    assertEquals(4, after.tasks().size());
    assertEquals(paths(planWithLists(ops, new ManifestListCache(0), null, null)), paths(after));
    assertEquals(3, planWithLists(ops, lists, before, null).tasks().size());
    assertEquals(1, lists.hits());
  }

  @Test
  public void aCacheOfNoWeightKeepsNothing() {
    FileSystemTableOperations ops = table();
    ManifestListCache none = new ManifestListCache(0);
    planWithLists(ops, none, null, null);
    planWithLists(ops, none, null, null);
    assertEquals(2, none.misses());
    assertEquals(0, none.hits());
  }
}
