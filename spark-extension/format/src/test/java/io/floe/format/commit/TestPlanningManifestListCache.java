package io.floe.format.commit;

import static org.junit.Assert.assertEquals;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.expr.Expressions;
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

/** Planning through a {@link ManifestListCache}: no manifest list decoded twice, each snapshot its own. */
public class TestPlanningManifestListCache {
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

  private static ScanPlan plan(FileSystemTableOperations ops, ManifestListCache lists, Snapshot snapshot,
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
    ScanPlan first = plan(ops, lists, null, null);
    assertEquals(3, first.tasks().size());
    assertEquals(1, lists.misses());

    // the kept list is used even when the file is gone: it is never read again
    Path list = Path.of(java.net.URI.create(ops.refresh().currentSnapshot().manifestListLocation()));
    byte[] bytes = Files.readAllBytes(list);
    Files.delete(list);
    ScanPlan second = plan(ops, lists, null, "eu");
    assertEquals(1, lists.misses());
    assertEquals(1, lists.hits());
    Files.write(list, bytes);
    assertEquals(paths(plan(ops, new ManifestListCache(0), null, "eu")), paths(second));
    assertEquals(2, second.tasks().size());
    assertEquals(paths(first), paths(plan(ops, lists, null, null)));
  }

  @Test
  public void eachSnapshotIsPlannedFromItsOwnList() {
    FileSystemTableOperations ops = table();
    ManifestListCache lists = new ManifestListCache(1L << 30);
    Snapshot before = ops.refresh().currentSnapshot();
    plan(ops, lists, null, null);
    new AppendFiles(ops).appendFile(CommitFixtures.dataFile(ops.refresh(), "us", 7)).commit();

    ScanPlan after = plan(ops, lists, null, null);
    assertEquals(2, lists.misses());
    assertEquals(4, after.tasks().size());
    assertEquals(paths(plan(ops, new ManifestListCache(0), null, null)), paths(after));
    assertEquals(3, plan(ops, lists, before, null).tasks().size());
    assertEquals(1, lists.hits());
  }

  @Test
  public void aCacheOfNoWeightKeepsNothing() {
    FileSystemTableOperations ops = table();
    ManifestListCache none = new ManifestListCache(0);
    plan(ops, none, null, null);
    plan(ops, none, null, null);
    assertEquals(2, none.misses());
    assertEquals(0, none.hits());
  }
}
