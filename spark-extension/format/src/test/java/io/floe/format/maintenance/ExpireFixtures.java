package io.floe.format.maintenance;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.RowDelta;
import io.floe.format.io.FileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.PartitionStatisticsFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.SnapshotRefType;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * Random table histories for expiry tests: appends, overwrites, row deltas (deletion vectors sharing
 * Puffin files on v3, position and equality delete files on v2), tags and branches with retention
 * settings, rollbacks of main, and statistics files. Data files exist only in metadata.
 */
final class ExpireFixtures {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()));
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("region").build();
  private static final String[] REGIONS = {"eu", "us", "ap"};

  final FileSystemTableOperations ops;
  private final Random random;
  private int refCounter;

  ExpireFixtures(Path dir, String name, int formatVersion, Random random) {
    FileSystemCatalog catalog = new FileSystemCatalog(new LocalFileIO(), "file://" + dir.toAbsolutePath());
    if (!catalog.namespaceExists(List.of("db"))) {
      catalog.createNamespace(List.of("db"), Map.of());
    }
    TableIdentifier ident = TableIdentifier.of(List.of("db"), name);
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, SPEC, SortOrder.unsorted(),
        catalog.tableLocation(ident), Map.of(), formatVersion);
    this.ops = catalog.createTable(ident, metadata);
    this.random = random;
  }

  TableMetadata current() {
    return ops.refresh();
  }

  DataFile dataFile() {
    String region = REGIONS[random.nextInt(REGIONS.length)];
    return DataFile.builder(SPEC)
        .withPath(current().location() + "/data/region=" + region + "/" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.of(region)).withRecordCount(10)
        .withFileSizeInBytes(1000).withMetrics(Metrics.empty(10)).build();
  }

  void append() {
    AppendFiles append = new AppendFiles(ops);
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      append.appendFile(dataFile());
    }
    append.commit();
  }

  List<FileScanTask> liveTasks() {
    TableMetadata m = current();
    if (m.currentSnapshot() == null) {
      return List.of();
    }
    return TableScan.of(ops.io(), m).planFiles().tasks();
  }

  void overwrite() {
    List<FileScanTask> tasks = liveTasks();
    OverwriteFiles overwrite = new OverwriteFiles(ops);
    if (!tasks.isEmpty()) {
      overwrite.deleteFile(tasks.get(random.nextInt(tasks.size())).file().path());
    }
    overwrite.addFile(dataFile());
    overwrite.commit();
  }

  /** v3: deletion vectors for 1-3 live data files in one new Puffin file (replacing older DVs). */
  void rowDeltaWithDvs() {
    List<FileScanTask> tasks = new ArrayList<>(liveTasks());
    if (tasks.isEmpty()) {
      append();
      return;
    }
    java.util.Collections.shuffle(tasks, random);
    String puffin = current().location() + "/data/" + UUID.randomUUID() + "-deletes.puffin";
    RowDelta delta = new RowDelta(ops);
    int n = Math.min(tasks.size(), 1 + random.nextInt(3));
    for (int i = 0; i < n; i++) {
      FileScanTask task = tasks.get(i);
      for (DeleteFile old : task.deletes()) {
        delta.removeDeletes(old);
      }
      delta.addDeletes(DeleteFile.builder(SPEC).withContent(FileContent.POSITION_DELETES).withPath(puffin)
          .withFormat(FileFormat.PUFFIN).withPartition(task.file().partition()).withRecordCount(2)
          .withFileSizeInBytes(1000).withMetrics(Metrics.empty(2)).withReferencedDataFile(task.file().path())
          .withContentOffset(4L + 100L * i).withContentSizeInBytes(40L).build());
    }
    if (random.nextBoolean()) {
      delta.addRows(dataFile());
    }
    delta.commit();
  }

  /** v2: a position delete file for a live data file, or an equality delete file. */
  void rowDeltaWithDeleteFiles() {
    List<FileScanTask> tasks = liveTasks();
    if (tasks.isEmpty()) {
      append();
      return;
    }
    DataFile target = tasks.get(random.nextInt(tasks.size())).file();
    RowDelta delta = new RowDelta(ops);
    DeleteFile.Builder deletes = DeleteFile.builder(SPEC).withFormat(FileFormat.PARQUET).withPartition(target.partition())
        .withRecordCount(1).withFileSizeInBytes(100).withMetrics(Metrics.empty(1));
    if (random.nextBoolean()) {
      deletes.withContent(FileContent.POSITION_DELETES).withReferencedDataFile(target.path())
          .withPath(target.path().replace(".parquet", "-pos-" + UUID.randomUUID() + ".parquet"));
    } else {
      deletes.withContent(FileContent.EQUALITY_DELETES).withEqualityFieldIds(List.of(1))
          .withPath(current().location() + "/data/" + UUID.randomUUID() + "-eq.parquet");
    }
    delta.addDeletes(deletes.build());
    delta.commit();
  }

  /** A tag or branch at the current snapshot, sometimes with its own retention settings. */
  void createRef() {
    TableMetadata base = current();
    if (base.currentSnapshot() == null) {
      return;
    }
    boolean tag = random.nextBoolean();
    SnapshotRef.Builder ref = SnapshotRef.builderFor(base.currentSnapshot().snapshotId(),
        tag ? SnapshotRefType.TAG : SnapshotRefType.BRANCH);
    if (random.nextInt(3) == 0) {
      ref.maxRefAgeMs((long) random.nextInt(50));
    }
    if (!tag && random.nextBoolean()) {
      ref.minSnapshotsToKeep(1 + random.nextInt(3));
    }
    if (!tag && random.nextBoolean()) {
      ref.maxSnapshotAgeMs((long) random.nextInt(100));
    }
    String name = (tag ? "tag" : "branch") + (refCounter++);
    ops.commit(base, TableMetadata.buildFrom(base).setRef(name, ref.build()).build());
  }

  /** Points main at an ancestor of its current snapshot (what rollback_to_snapshot does). */
  void rollback() {
    TableMetadata base = current();
    Snapshot head = base.currentSnapshot();
    if (head == null || head.parentId() == null || base.snapshot(head.parentId()) == null) {
      return;
    }
    Snapshot target = base.snapshot(head.parentId());
    if (random.nextBoolean() && target.parentId() != null && base.snapshot(target.parentId()) != null) {
      target = base.snapshot(target.parentId());
    }
    ops.commit(base, TableMetadata.buildFrom(base).setBranchSnapshot(target.snapshotId(), "main").build());
  }

  void addStatistics() {
    TableMetadata base = current();
    if (base.currentSnapshot() == null) {
      return;
    }
    long id = base.currentSnapshot().snapshotId();
    String path = base.location() + "/metadata/" + id + "-" + UUID.randomUUID() + ".stats";
    TableMetadata updated = random.nextBoolean()
        ? TableMetadata.buildFrom(base).setStatistics(new StatisticsFile(id, path, 10, 5, null, List.of())).build()
        : TableMetadata.buildFrom(base).setPartitionStatistics(new PartitionStatisticsFile(id,
            path.replace(".stats", ".parquet"), 10)).build();
    ops.commit(base, updated);
  }

  /** One random step of history. */
  void randomStep(int formatVersion) {
    int pick = random.nextInt(12);
    if (pick < 4) {
      append();
    } else if (pick < 6) {
      overwrite();
    } else if (pick < 9) {
      if (formatVersion >= 3) {
        rowDeltaWithDvs();
      } else {
        rowDeltaWithDeleteFiles();
      }
    } else if (pick == 9) {
      createRef();
    } else if (pick == 10) {
      rollback();
    } else {
      addStatistics();
    }
    sleepAMillisecond();
  }

  static void sleepAMillisecond() {
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Every file {@code metadata} reaches, by definition: each snapshot's manifest list, its manifests,
   * the files of their live entries, and the statistics files.
   */
  static Set<String> reachable(FileIO io, TableMetadata metadata) {
    Set<String> files = new HashSet<>();
    for (Snapshot s : metadata.snapshots()) {
      files.add(s.manifestListLocation());
      for (ManifestFile m : ManifestLists.read(io.newInputFile(s.manifestListLocation()))) {
        files.add(m.path());
        for (ManifestEntry<?> e : ManifestReader.read(io.newInputFile(m.path()), m, metadata.specsById())) {
          if (e.isLive()) {
            files.add(e.file().path());
          }
        }
      }
    }
    metadata.statisticsFiles().forEach(f -> files.add(f.path()));
    metadata.partitionStatisticsFiles().forEach(f -> files.add(f.path()));
    return files;
  }
}
