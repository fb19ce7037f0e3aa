package io.floe.format.commit;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.io.FileInfo;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.index.IndexListFiles;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A small table for one matrix cell, with real (empty) files behind every data and delete file so
 * that deletions are observable. Partitioned tables (identity on region) start with data files
 * eu1, eu2 and us1; unpartitioned ones with f1, f2 and f3, in one append; with {@code history},
 * for an expiry, the append holds one more file that a second snapshot deletes, so that the expiry
 * has a snapshot and a file to remove before B commits.
 */
final class ConflictMatrixTable {
  private final FileSystemCatalog catalog;
  private final TableIdentifier ident;
  private final boolean partitioned;
  private final Map<String, DataFile> files = new LinkedHashMap<>();
  private final FileSystemTableOperations ops;

  ConflictMatrixTable(FileSystemCatalog catalog, String name, boolean partitioned, int formatVersion,
      boolean history) {
    this.catalog = catalog;
    this.ident = TableIdentifier.of(List.of("db"), name);
    this.partitioned = partitioned;
    if (!catalog.namespaceExists(List.of("db"))) {
      catalog.createNamespace(List.of("db"), Map.of());
    }
    TableMetadata fresh = TableMetadata.newTableMetadata(CommitFixtures.SCHEMA, spec(), SortOrder.unsorted(),
        catalog.tableLocation(ident), properties(), formatVersion);
    this.ops = catalog.createTable(ident, fresh);
    List<String> names = partitioned ? List.of("eu1", "eu2", "us1") : List.of("f1", "f2", "f3");
    AppendFiles append = new AppendFiles(ops);
    for (String n : names) {
      DataFile f = newDataFile(partitioned ? n.substring(0, 2) : null, 10);
      files.put(n, f);
      append.appendFile(f);
    }
    if (history) {
      DataFile extra = newDataFile(partitioned ? "eu" : null, 5);
      append.appendFile(extra).commit();
      new OverwriteFiles(ops).deleteFile(extra.path()).commit();
    } else {
      append.commit();
    }
  }

  /** Short retry waits: every cell retries once, and the matrix must run in seconds. */
  static Map<String, String> properties() {
    return Map.of(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "1", TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "5");
  }

  PartitionSpec spec() {
    return partitioned ? PartitionSpec.builderFor(CommitFixtures.SCHEMA).identity("region").build()
        : PartitionSpec.unpartitioned();
  }

  boolean partitioned() {
    return partitioned;
  }

  String name() {
    return ops.tableName();
  }

  String location() {
    return catalog.tableLocation(ident);
  }

  /** Table operations of their own (another writer's view of the table). */
  FileSystemTableOperations newOps() {
    return catalog.loadTable(ident);
  }

  DataFile file(String name) {
    return files.get(name);
  }

  /** A new data file of {@code records} rows in partition {@code region} (null: unpartitioned), written to disk. */
  DataFile newDataFile(String region, long records) {
    String dir = region == null ? "/data/" : "/data/region=" + region + "/";
    DataFile f = DataFile.builder(spec())
        .withPath(location() + dir + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(region == null ? PartitionData.empty() : PartitionData.of(region))
        .withRecordCount(records)
        .withFileSizeInBytes(100 * records)
        .withMetrics(Metrics.empty(records))
        .build();
    touch(f.path());
    return f;
  }

  /** The rewritten copy of {@code data} (same partition) holding {@code records} rows. */
  DataFile copyOf(DataFile data, long records) {
    return newDataFile(region(data), records);
  }

  String region(DataFile data) {
    return partitioned ? (String) data.partition().get(0) : null;
  }

  /** A v2 position delete file for {@code data} (it names its data file, as Floe writes them). */
  DeleteFile positionDeletes(DataFile data, long count) {
    DeleteFile d = DeleteFile.builder(spec()).withContent(FileContent.POSITION_DELETES)
        .withPath(data.path().replace(".parquet", "-deletes-" + UUID.randomUUID() + ".parquet"))
        .withFormat(FileFormat.PARQUET).withPartition(data.partition()).withRecordCount(count)
        .withFileSizeInBytes(40 + count).withMetrics(Metrics.empty(count)).withReferencedDataFile(data.path()).build();
    touch(d.path());
    return d;
  }

  /** A v2 position delete file that names no data file: it applies to every older file of its partition. */
  DeleteFile partitionPositionDeletes(String region, long count) {
    String dir = region == null ? "/data/" : "/data/region=" + region + "/";
    DeleteFile d = DeleteFile.builder(spec()).withContent(FileContent.POSITION_DELETES)
        .withPath(location() + dir + UUID.randomUUID() + "-partition-deletes.parquet")
        .withFormat(FileFormat.PARQUET).withPartition(region == null ? PartitionData.empty() : PartitionData.of(region))
        .withRecordCount(count).withFileSizeInBytes(40 + count).withMetrics(Metrics.empty(count)).build();
    touch(d.path());
    return d;
  }

  /** A v3 deletion vector for {@code data}, in a Puffin file of its own. */
  DeleteFile deletionVector(DataFile data, long count) {
    String puffin = location() + "/data/" + UUID.randomUUID() + "-dv.puffin";
    DeleteFile d = DeleteFile.builder(spec()).withContent(FileContent.POSITION_DELETES).withPath(puffin)
        .withFormat(FileFormat.PUFFIN).withPartition(data.partition()).withRecordCount(count)
        .withFileSizeInBytes(1000).withMetrics(Metrics.empty(count)).withReferencedDataFile(data.path())
        .withContentOffset(4L).withContentSizeInBytes(20L + count).build();
    touch(d.path());
    return d;
  }

  private static void touch(String location) {
    Path p = LocalFileIO.toPath(location);
    try {
      Files.createDirectories(p.getParent());
      Files.write(p, new byte[] {'P', 'A', 'R', '1'});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What a reader sees: live data files with their deletes, columns, indexes, snapshot count. */
  ConflictMatrixState state() {
    TableMetadata current = ops.refresh();
    ConflictMatrixState s = new ConflictMatrixState();
    if (current.currentSnapshot() != null) {
      for (FileScanTask task : TableScan.of(ops.io(), current).planFiles().tasks()) {
        DataFile f = task.file();
        s.addData(f.path(), f.recordCount(), region(f));
        for (DeleteFile d : task.deletes()) {
          s.addDelete(f.path(), d.path(), d.recordCount());
        }
      }
    }
    current.schema().columns().forEach(c -> s.columns.add(c.name()));
    IndexListFiles.read(ops.io(), name(), current.properties()).indexes().forEach(i -> s.indexes.add(i.name()));
    s.snapshots = current.snapshots().size();
    return s;
  }

  String metadataLocation() {
    return ops.refresh().metadataFileLocation();
  }

  /** Every file under {@code metadata/}, as local paths. */
  Set<String> metadataListing() {
    Set<String> out = new TreeSet<>();
    try {
      for (FileInfo f : ops.io().listRecursively(ops.metadataRoot() + "/metadata")) {
        out.add(LocalFileIO.toPath(f.location()).toString());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * Files under {@code metadata/} that were not there in {@code before} and that the current
   * metadata does not reach (manifest lists and manifests of its snapshots, the index list and its
   * segments) or any published version names; version files are kept by design (expiry removes
   * them). What is left is what a commit left behind.
   */
  Set<String> leftovers(Set<String> before) {
    Set<String> listing = metadataListing();
    Set<String> left = new TreeSet<>(listing);
    left.removeAll(before);
    left.removeAll(reachableMetadata());
    left.removeIf(p -> p.endsWith(".metadata.json") || p.endsWith("version-hint.text"));
    if (!left.isEmpty()) {
      // an index list that an earlier version named was published, then superseded (like that version)
      StringBuilder versions = new StringBuilder();
      for (String p : listing) {
        if (p.endsWith(".metadata.json")) {
          try {
            versions.append(Files.readString(Path.of(p)));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      left.removeIf(p -> versions.indexOf(Path.of(p).getFileName().toString()) >= 0);
    }
    return left;
  }

  private Set<String> reachableMetadata() {
    TableMetadata current = ops.refresh();
    Set<String> out = new HashSet<>();
    for (Snapshot s : current.snapshots()) {
      out.add(local(s.manifestListLocation()));
      for (ManifestFile m : ManifestLists.read(ops.io().newInputFile(s.manifestListLocation()))) {
        out.add(local(m.path()));
      }
    }
    String indexList = IndexListFiles.currentLocation(current.properties());
    if (indexList != null) {
      out.add(local(indexList));
      IndexListFiles.read(ops.io(), name(), current.properties()).segmentPaths().forEach(p -> out.add(local(p)));
    }
    return out;
  }

  /** Files the current snapshot needs that are not on disk: data, delete, manifest and list files. */
  Set<String> missingFiles() {
    TableMetadata current = ops.refresh();
    Set<String> missing = new TreeSet<>();
    Snapshot snap = current.currentSnapshot();
    if (snap == null) {
      return missing;
    }
    Set<String> needed = new HashSet<>();
    needed.add(snap.manifestListLocation());
    ManifestLists.read(ops.io().newInputFile(snap.manifestListLocation())).forEach(m -> needed.add(m.path()));
    for (FileScanTask task : TableScan.of(ops.io(), current).planFiles().tasks()) {
      needed.add(task.file().path());
      task.deletes().forEach(d -> needed.add(d.path()));
    }
    needed.stream().filter(p -> !Files.exists(LocalFileIO.toPath(p))).forEach(missing::add);
    return missing;
  }

  /**
   * Deletion vectors the current snapshot still lists whose data file is gone: v3 removes a data
   * file's DV with it (the spec allows one live DV per data file, for live files).
   */
  Set<String> danglingDeletionVectors() {
    TableMetadata current = ops.refresh();
    Set<String> dangling = new TreeSet<>();
    Snapshot snap = current.currentSnapshot();
    if (snap == null || current.formatVersion() < 3) {
      return dangling;
    }
    Set<String> live = new HashSet<>();
    TableScan.of(ops.io(), current).planFiles().tasks().forEach(t -> live.add(t.file().path()));
    for (ManifestFile m : ManifestLists.read(ops.io().newInputFile(snap.manifestListLocation()))) {
      if (m.content() != ManifestContent.DELETES) {
        continue;
      }
      for (ManifestEntry<DeleteFile> e : ManifestReader.readDeletes(ops.io().newInputFile(m.path()), m,
          current.specsById())) {
        if (e.status() != ManifestEntry.Status.DELETED && ContentFiles.isDeletionVector(e.file())
            && !live.contains(e.file().referencedDataFile())) {
          dangling.add(e.file().path() + " for " + e.file().referencedDataFile());
        }
      }
    }
    return dangling;
  }

  private static String local(String location) {
    return LocalFileIO.toPath(location).toString();
  }
}
