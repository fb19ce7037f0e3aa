package io.floe.format.maintenance;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.io.Locations;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.PartitionStatisticsFile;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestOrphanFiles {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()));
  private static final long OLD = System.currentTimeMillis() - TimeUnit.DAYS.toMillis(10);

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations ops;
  private Path tableDir;

  @Before
  public void createTable() throws IOException {
    FileSystemCatalog catalog = new FileSystemCatalog(new LocalFileIO(), "file://" + temp.getRoot().getAbsolutePath());
    catalog.createNamespace(List.of("db"), Map.of());
    TableIdentifier ident = TableIdentifier.of(List.of("db"), "t");
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("region").build();
    ops = catalog.createTable(ident, TableMetadata.newTableMetadata(SCHEMA, spec, SortOrder.unsorted(),
        catalog.tableLocation(ident), Map.of(), 2));
    tableDir = Paths.get(temp.getRoot().getAbsolutePath(), "db", "t");
  }

  /** A data file of the table, written on disk, its path as given (any spelling of the location). */
  private DataFile dataFile(String path) throws IOException {
    Path local = Paths.get(io.floe.format.io.Locations.canonical(path).replaceFirst("^[a-z0-9]+://[^/]*", "")
        .replaceFirst("^file:", ""));
    Files.createDirectories(local.getParent());
    Files.write(local, new byte[] {1, 2, 3});
    return DataFile.builder(ops.current().spec())
        .withPath(path).withFormat(FileFormat.PARQUET).withPartition(PartitionData.of("eu"))
        .withRecordCount(1).withFileSizeInBytes(3).withMetrics(Metrics.empty(1)).build();
  }

  private String newDataPath() {
    return ops.current().location() + "/data/region=eu/" + UUID.randomUUID() + ".parquet";
  }

  private Path plant(String relative) throws IOException {
    Path p = tableDir.resolve(relative);
    Files.createDirectories(p.getParent());
    Files.write(p, new byte[] {9});
    return p;
  }

  private void ageEverything() throws IOException {
    try (Stream<Path> walk = Files.walk(tableDir)) {
      for (Path p : walk.filter(Files::isRegularFile).collect(Collectors.toList())) {
        Files.setLastModifiedTime(p, FileTime.fromMillis(OLD));
      }
    }
  }

  private Set<Path> allFiles() throws IOException {
    try (Stream<Path> walk = Files.walk(tableDir)) {
      return walk.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
  }

  private static Set<Path> localPaths(List<String> locations) {
    Set<Path> paths = new HashSet<>();
    for (String l : locations) {
      paths.add(Paths.get(io.floe.format.io.Locations.canonical(l).substring("file:".length())));
    }
    return paths;
  }

  /** A table with two appends, an overwrite (the replaced file stays reachable), and statistics. */
  private void populate() throws IOException {
    DataFile first = dataFile(newDataPath());
    new AppendFiles(ops).appendFile(first).commit();
    new AppendFiles(ops).appendFile(dataFile(newDataPath())).commit();
    new OverwriteFiles(ops).deleteFile(first.path()).addFile(dataFile(newDataPath())).commit();
    TableMetadata base = ops.refresh();
    long id = base.currentSnapshot().snapshotId();
    String stats = base.location() + "/metadata/" + id + "-stats.puffin";
    String partStats = base.location() + "/metadata/partition-stats-" + id + ".parquet";
    plant("metadata/" + id + "-stats.puffin");
    plant("metadata/partition-stats-" + id + ".parquet");
    ops.commit(base, TableMetadata.buildFrom(base)
        .setStatistics(new StatisticsFile(id, stats, 1, 0, null, List.of()))
        .setPartitionStatistics(new PartitionStatisticsFile(id, partStats, 1)).build());
  }

  @Test
  public void deletesExactlyThePlantedOrphans() throws IOException {
    populate();
    Set<Path> reachable = allFiles();
    Set<Path> orphans = Set.of(plant("data/region=eu/orphan.parquet"), plant("metadata/orphan-m0.avro"),
        plant("stray.txt"), plant("metadata/snap-1-1-orphan.avro"));
    Set<Path> hidden = Set.of(plant("data/_floe-writing-abc"), plant("data/region=eu/.part.crc"),
        plant("_SUCCESS"), plant("data/_tmp/x.parquet"), plant("metadata/.floe-x.metadata.json.tmp"));
    ageEverything();

    List<String> removed = OrphanFiles.of(ops).threads(3).execute();

    assertEquals(orphans, localPaths(removed));
    for (Path p : orphans) {
      assertFalse("orphan not deleted: " + p, Files.exists(p));
    }
    for (Path p : reachable) {
      assertTrue("reachable file deleted: " + p, Files.exists(p));
    }
    for (Path p : hidden) {
      assertTrue("hidden file deleted: " + p, Files.exists(p));
    }
    assertTrue(Files.isDirectory(tableDir));
    assertEquals(2, TableScan.of(ops.io(), ops.refresh()).planFiles().tasks().size());
    assertEquals(List.of(), OrphanFiles.of(ops).execute());
  }

  @Test
  public void temporaryFilesOfADeadCommitAreRemovedOnceStale() throws IOException {
    populate();
    // what a commit that died between writing and publishing (or between hint steps) leaves behind
    Path version = plant("metadata/.floe-" + UUID.randomUUID() + ".metadata.json.tmp");
    Path hint = plant("metadata/.floe-" + UUID.randomUUID() + "-version-hint.tmp");
    Path lookalike = plant("data/.floe-" + UUID.randomUUID() + ".metadata.json.tmp");
    ageEverything();
    Path fresh = plant("metadata/.floe-" + UUID.randomUUID() + ".metadata.json.tmp");

    List<String> removed = OrphanFiles.of(ops).execute();

    assertEquals(Set.of(version, hint), localPaths(removed));
    assertFalse(Files.exists(version));
    assertFalse(Files.exists(hint));
    assertTrue("a temporary name outside metadata/ is not a commit's", Files.exists(lookalike));
    assertTrue("a commit may still be publishing a recent temporary file", Files.exists(fresh));
  }

  @Test
  public void filesOfSnapshotsNoRefReachesAreKept() throws IOException {
    new AppendFiles(ops).appendFile(dataFile(newDataPath())).commit();
    long first = ops.refresh().currentSnapshot().snapshotId();
    DataFile rolledBack = dataFile(newDataPath());
    new AppendFiles(ops).appendFile(rolledBack).commit();
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setBranchSnapshot(first, "main").build());
    assertEquals(2, ops.refresh().snapshots().size());
    Path orphan = plant("data/orphan.parquet");
    ageEverything();
    Set<Path> before = allFiles();
    assertEquals(Set.of(orphan), localPaths(OrphanFiles.of(ops).execute()));
    before.remove(orphan);
    assertEquals(before, allFiles());
    assertTrue(Files.exists(Paths.get(rolledBack.path().substring("file://".length()))));
  }

  @Test
  public void dryRunDeletesNothing() throws IOException {
    populate();
    Path orphan = plant("data/region=eu/orphan.parquet");
    ageEverything();
    Set<Path> before = allFiles();
    List<String> found = OrphanFiles.of(ops).dryRun(true).execute();
    assertEquals(Set.of(orphan), localPaths(found));
    assertEquals(before, allFiles());
  }

  @Test
  public void olderThanIsRespected() throws IOException {
    populate();
    Path old = plant("data/old.parquet");
    ageEverything();
    Path recent = plant("data/in-flight.parquet");
    Files.setLastModifiedTime(recent, FileTime.fromMillis(System.currentTimeMillis() - TimeUnit.HOURS.toMillis(30)));
    List<String> removed = OrphanFiles.of(ops).execute();
    assertEquals(Set.of(old), localPaths(removed));
    assertTrue("a file newer than the default three days must stay", Files.exists(recent));

    removed = OrphanFiles.of(ops).olderThan(System.currentTimeMillis() - TimeUnit.HOURS.toMillis(25)).execute();
    assertEquals(Set.of(recent), localPaths(removed));
  }

  @Test
  public void shortIntervalNeedsTheExplicitFlag() throws IOException {
    populate();
    Path fresh = plant("data/fresh.parquet");
    long hourAgo = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
    Files.setLastModifiedTime(fresh, FileTime.fromMillis(hourAgo - 60_000));
    try {
      OrphanFiles.of(ops).olderThan(hourAgo).execute();
      fail("older_than one hour ago must be refused");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("24 hours") && e.getMessage().contains("in flight")
          && e.getMessage().contains("allow_short_interval") && e.getMessage().contains("db.t"));
    }
    assertTrue(Files.exists(fresh));
    List<String> removed = OrphanFiles.of(ops).olderThan(hourAgo).allowShortInterval(true).execute();
    assertEquals(Set.of(fresh), localPaths(removed));
  }

  @Test
  public void locationOutsideTheTableIsRefused() throws IOException {
    populate();
    Path orphanInData = plant("data/orphan.parquet");
    Path orphanElsewhere = plant("other/orphan.parquet");
    ageEverything();
    String root = ops.current().location();
    for (String outside : List.of("/etc", "file:/etc", root + "/../t2", root + "/data/../..", root + "x",
        "hdfs://nn" + tableDir)) {
      try {
        OrphanFiles.of(ops).location(outside).execute();
        fail("location " + outside + " must be refused");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("not inside the table location"));
      }
    }
    assertTrue(Files.exists(orphanInData) && Files.exists(orphanElsewhere));
    List<String> removed = OrphanFiles.of(ops).location(tableDir.resolve("data").toString()).execute();
    assertEquals(Set.of(orphanInData), localPaths(removed));
    assertTrue(Files.exists(orphanElsewhere));
  }

  @Test
  public void pathsAreComparedInCanonicalForm() throws IOException {
    String plain = tableDir + "/data/region=eu/plain.parquet";
    String single = "file:" + tableDir + "/data/region=eu/single.parquet";
    String doubled = "file://" + tableDir + "//data/region=eu/doubled.parquet";
    new AppendFiles(ops).appendFile(dataFile(plain)).appendFile(dataFile(single)).appendFile(dataFile(doubled))
        .commit();
    ageEverything();
    Set<Path> before = allFiles();
    assertEquals(List.of(), OrphanFiles.of(ops).execute());
    assertEquals(before, allFiles());
  }

  @Test
  public void prefixMismatchFailsByDefault() throws IOException {
    String hdfsPath = "hdfs://nn:8020" + tableDir + "/data/region=eu/remote.parquet";
    new AppendFiles(ops).appendFile(dataFile(hdfsPath)).commit();
    ageEverything();
    Path local = tableDir.resolve("data/region=eu/remote.parquet");
    try {
      OrphanFiles.of(ops).execute();
      fail("a listed file matching a reachable location but for the scheme must be an error");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("remote.parquet") && e.getMessage().contains("hdfs://nn:8020")
          && e.getMessage().contains("Nothing was deleted"));
    }
    assertTrue(Files.exists(local));
    assertEquals(List.of(), OrphanFiles.of(ops).prefixMismatchMode(OrphanFiles.PrefixMismatchMode.IGNORE).execute());
    assertTrue(Files.exists(local));
    assertEquals(List.of(), OrphanFiles.of(ops).equalSchemes(Map.of("hdfs", "file")).execute());
    assertTrue(Files.exists(local));
    List<String> removed = OrphanFiles.of(ops)
        .prefixMismatchMode(OrphanFiles.PrefixMismatchMode.fromString("delete")).execute();
    assertEquals(Set.of(local), localPaths(removed));
  }

  @Test
  public void equalSchemesAndAuthoritiesMapAliases() {
    OrphanPrefixes prefixes = new OrphanPrefixes(Map.of("s3x", "s3"), Map.of("nn1:8020,nn1.example", "nn1"));
    assertTrue(prefixes.addReachable("s3a://bucket/t/data/a.parquet"));
    assertTrue(prefixes.addReachable("hdfs://nn1:8020/t/data/b.parquet"));
    assertTrue(prefixes.addReachable("/t/data/c.parquet"));
    assertEquals(OrphanPrefixes.Match.REACHABLE, prefixes.match(prefixes.parse("s3://bucket/t/data/a.parquet")));
    assertEquals(OrphanPrefixes.Match.REACHABLE, prefixes.match(prefixes.parse("s3x://bucket/t/data/a.parquet")));
    assertEquals(OrphanPrefixes.Match.PREFIX_MISMATCH,
        prefixes.match(prefixes.parse("s3://other/t/data/a.parquet")));
    assertEquals(OrphanPrefixes.Match.REACHABLE, prefixes.match(prefixes.parse("hdfs://nn1.example/t/data/b.parquet")));
    assertEquals(OrphanPrefixes.Match.PREFIX_MISMATCH, prefixes.match(prefixes.parse("hdfs://nn2/t/data/b.parquet")));
    assertEquals(OrphanPrefixes.Match.REACHABLE, prefixes.match(prefixes.parse("hdfs://nn2/t/data/c.parquet")));
    assertEquals(OrphanPrefixes.Match.UNREACHABLE, prefixes.match(prefixes.parse("s3://bucket/t/data/z.parquet")));
    assertFalse(prefixes.addReachable("file:/t/data/../../etc/passwd"));
  }

  @Test
  public void untrustedMetadataPathRefusesEverything() throws IOException {
    new AppendFiles(ops).appendFile(dataFile(newDataPath())).commit();
    Path orphan = plant("data/orphan.parquet");
    TableMetadata base = ops.refresh();
    long id = base.currentSnapshot().snapshotId();
    ops.commit(base, TableMetadata.buildFrom(base)
        .setPartitionStatistics(new PartitionStatisticsFile(id, base.location() + "/metadata/../data/orphan.parquet", 1))
        .build());
    ageEverything();
    try {
      OrphanFiles.of(ops).execute();
      fail("a '..' path in the metadata must stop orphan removal");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("/metadata/../data/orphan.parquet"));
    }
    assertTrue(Files.exists(orphan));
  }

  @Test
  public void gcDisabledIsRefused() throws IOException {
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of("gc.enabled", "false")).build());
    Path orphan = plant("data/orphan.parquet");
    ageEverything();
    try {
      OrphanFiles.of(ops).execute();
      fail("gc.enabled=false must stop orphan removal");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("gc.enabled"));
    }
    assertTrue(Files.exists(orphan));
  }

  @Test
  public void symbolicLinkOutOfTheTableIsRefused() throws IOException {
    Path outside = temp.newFolder("outside").toPath();
    Path victim = Files.write(outside.resolve("victim.parquet"), new byte[] {1});
    Files.createDirectories(tableDir.resolve("data"));
    Files.createSymbolicLink(tableDir.resolve("data/link"), outside);
    Files.setLastModifiedTime(victim, FileTime.fromMillis(OLD));
    // a storage whose listing follows links into directories (as some Hadoop file systems do)
    FileIO following = new ForwardingFileIO(new LocalFileIO()) {
      @Override
      public List<FileInfo> listRecursively(String directory) throws IOException {
        List<FileInfo> files = new ArrayList<>(super.listRecursively(directory));
        Path dir = Paths.get(Locations.canonical(directory).substring("file:".length()));
        try (Stream<Path> walk = Files.walk(dir, FileVisitOption.FOLLOW_LINKS)) {
          for (Path p : walk.filter(Files::isRegularFile).collect(Collectors.toList())) {
            String location = directory + "/" + dir.relativize(p);
            if (files.stream().noneMatch(f -> f.location().equals(location))) {
              files.add(new FileInfo(location, Files.size(p), Files.getLastModifiedTime(p).toMillis()));
            }
          }
        }
        return files;
      }
    };
    FileSystemCatalog catalog = new FileSystemCatalog(following, "file://" + temp.getRoot().getAbsolutePath());
    FileSystemTableOperations linked = catalog.loadTable(TableIdentifier.of(List.of("db"), "t"));
    assertTrue(following.listRecursively(linked.refresh().location()).stream()
        .anyMatch(f -> f.location().endsWith("data/link/victim.parquet")));
    try {
      OrphanFiles.of(linked).execute();
      fail("a file reached through a link out of the table must stop orphan removal");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("symbolic link") && e.getMessage().contains("victim"));
    }
    assertTrue(Files.exists(victim));
    assertEquals(List.of(), OrphanFiles.of(ops).execute()); // the local listing does not follow links
    assertTrue(Files.exists(victim));
  }
}
