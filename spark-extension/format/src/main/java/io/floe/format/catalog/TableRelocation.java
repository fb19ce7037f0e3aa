package io.floe.format.catalog;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.ManifestWriter;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.partition.PartitionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Rewrites a table's metadata after its directory moved (ALTER TABLE RENAME): every path that
 * started with the old root now starts with the new one. Manifests and manifest lists of every
 * snapshot are rewritten under new names (entry status, snapshot ids and sequence numbers kept),
 * and a new metadata version points at them, so history and time travel survive the rename.
 */
final class TableRelocation {
  private final FileIO io;
  private final String oldRoot;
  private final String newRoot;
  private final String rewriteId = UUID.randomUUID().toString();
  private final Map<String, ManifestFile> rewrittenManifests = new HashMap<>();
  private int manifestCount = 0;

  private TableRelocation(FileIO io, String oldRoot, String newRoot) {
    this.io = io;
    this.oldRoot = oldRoot;
    this.newRoot = newRoot;
  }

  /** Relocates the table whose files moved from {@code oldRoot} to {@code newRoot}; ops reads the new root. */
  static void relocate(FileSystemTableOperations ops, String oldRoot, String newRoot) {
    TableMetadata base = ops.refresh();
    TableRelocation relocation = new TableRelocation(ops.io(), oldRoot, newRoot);
    TableMetadataBuilder builder = TableMetadata.buildFrom(base);
    if (base.location().equals(oldRoot) || base.location().startsWith(oldRoot + "/")) {
      builder.setLocation(relocation.move(base.location()));
    }
    List<Snapshot> rewritten = new ArrayList<>();
    for (Snapshot s : base.snapshots()) {
      rewritten.add(relocation.rewriteSnapshot(ops, base, s));
    }
    builder.replaceSnapshots(rewritten);
    for (StatisticsFile stats : base.statisticsFiles()) {
      builder.setStatistics(new StatisticsFile(stats.snapshotId(), relocation.move(stats.path()),
          stats.fileSizeInBytes(), stats.fileFooterSizeInBytes(), stats.keyMetadata(), stats.blobMetadata()));
    }
    builder.clearMetadataLog();
    ops.commit(base, builder.build());
  }

  private String move(String path) {
    if (oldRoot.equals(path)) {
      return newRoot;
    }
    if (path != null && path.startsWith(oldRoot + "/")) {
      return newRoot + path.substring(oldRoot.length());
    }
    return path;
  }

  private String newMetadataFile(FileSystemTableOperations ops, String suffix) {
    return ops.metadataFileLocation("relocated-" + rewriteId + "-" + suffix);
  }

  private Snapshot rewriteSnapshot(FileSystemTableOperations ops, TableMetadata base, Snapshot snapshot) {
    List<ManifestFile> manifests = ManifestLists.read(io.newInputFile(move(snapshot.manifestListLocation())));
    List<ManifestFile> out = new ArrayList<>();
    for (ManifestFile m : manifests) {
      out.add(rewrittenManifests.computeIfAbsent(m.path(), p -> rewriteManifest(ops, base, m)));
    }
    String list = newMetadataFile(ops, "snap-" + snapshot.snapshotId() + ".avro");
    ManifestLists.write(base.formatVersion(), io.newOutputFile(list), snapshot.snapshotId(), snapshot.parentId(),
        snapshot.sequenceNumber(), snapshot.firstRowId(), out);
    return snapshot.withManifestListLocation(list);
  }

  private ManifestFile rewriteManifest(FileSystemTableOperations ops, TableMetadata base, ManifestFile manifest) {
    PartitionSpec spec = base.specsById().get(manifest.partitionSpecId());
    List<ManifestEntry> entries = ManifestReader.read(io.newInputFile(move(manifest.path())), manifest,
        base.specsById());
    String location = newMetadataFile(ops, "m" + manifestCount++ + ".avro");
    ManifestWriter writer = ManifestWriter.write(base.formatVersion(), spec, base.schema(),
        io.newOutputFile(location), manifest.snapshotId(), manifest.content());
    for (ManifestEntry e : entries) {
      DataFile file = DataFile.builder(spec).copy(e.file())
          .withPath(move(e.file().path()))
          .withReferencedDataFile(move(e.file().referencedDataFile()))
          .build();
      ManifestEntry moved = new ManifestEntry(e.status(), e.snapshotId(), e.dataSequenceNumber(),
          e.fileSequenceNumber(), file);
      if (e.status() == ManifestEntry.Status.DELETED) {
        writer.delete(moved);
      } else {
        writer.existing(moved);
      }
    }
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rewrite manifest " + manifest.path(), e);
    }
    ManifestFile written = writer.toManifestFile();
    return written.withSequenceNumbers(manifest.sequenceNumber(), manifest.minSequenceNumber())
        .withFirstRowId(manifest.content() == ManifestContent.DATA ? manifest.firstRowId() : null);
  }
}
