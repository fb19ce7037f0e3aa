package io.floe.format.catalog;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.deletes.PositionDeleteRewriter;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.ManifestWriter;
import io.floe.format.metadata.PartitionStatisticsFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.partition.PartitionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The metadata of a table whose folder is about to move (ALTER TABLE RENAME): every path that lies
 * below the old root now lies below the new one ({@link RootMove}). Built before the move, from
 * the files where they are: the manifests and manifest lists of every snapshot are rewritten under
 * new names (entries keep their status, snapshot ids and sequence numbers), the delete files whose content
 * names data files are rewritten ({@link DeleteFileRelocation}), and the table location, the
 * statistics and partition-statistics paths and path-valued properties move. Statistics Puffin
 * files hold theta sketches and no paths, so they only move. The result's metadata-log is empty
 * (the old versions name the old paths), so history and time travel survive the rename, with
 * every snapshot reading the rows it read before.
 *
 * <p>New files are written in the old folder under the names they will have after the move, so
 * the folder move carries them along; {@link #deleteWritten} removes them if the rename fails.
 */
final class TableRelocation {
  private final FileSystemTableOperations ops;
  private final FileIO io;
  private final RootMove move;
  private final PositionDeleteRewriter rewriter;
  private final String rewriteId = UUID.randomUUID().toString();
  private final Map<String, ManifestFile> rewrittenManifests = new HashMap<>();
  private final List<String> written = new ArrayList<>();
  private DeleteFileRelocation deletes;

  /** {@code ops}: the table under its old root; {@code rewriter} null when no engine rewrites Parquet. */
  TableRelocation(FileSystemTableOperations ops, String oldRoot, String newRoot, PositionDeleteRewriter rewriter) {
    this.ops = ops;
    this.io = ops.io();
    this.move = new RootMove(oldRoot, newRoot);
    this.rewriter = rewriter;
  }

  /** The metadata to commit once the folder moved; reads and writes files below the old root. */
  TableMetadata relocate(TableMetadata base) {
    this.deletes = new DeleteFileRelocation(io, move, ops.tableName(), rewriteId, rewriter, base.properties());
    TableMetadataBuilder builder = TableMetadata.buildFrom(base);
    builder.setLocation(move.apply(base.location()));
    Map<String, String> properties = new LinkedHashMap<>();
    base.properties().forEach((key, value) -> {
      if (move.moves(value)) {
        properties.put(key, move.apply(value));
      }
    });
    builder.setProperties(properties);
    List<Snapshot> rewritten = new ArrayList<>();
    for (Snapshot s : base.snapshots()) {
      rewritten.add(rewriteSnapshot(base, s));
    }
    builder.replaceSnapshots(rewritten);
    for (StatisticsFile stats : base.statisticsFiles()) {
      builder.setStatistics(new StatisticsFile(stats.snapshotId(), move.apply(stats.path()),
          stats.fileSizeInBytes(), stats.fileFooterSizeInBytes(), stats.keyMetadata(), stats.blobMetadata()));
    }
    for (PartitionStatisticsFile stats : base.partitionStatisticsFiles()) {
      builder.setPartitionStatistics(new PartitionStatisticsFile(stats.snapshotId(), move.apply(stats.path()),
          stats.fileSizeInBytes()));
    }
    builder.clearMetadataLog();
    return builder.build();
  }

  /**
   * Deletes the files this relocation wrote, best effort; only when no commit of them may have
   * landed. Failures are added to {@code failure}.
   */
  void deleteWritten(Throwable failure) {
    List<String> all = new ArrayList<>(written);
    if (deletes != null) {
      all.addAll(deletes.written());
    }
    for (String file : all) {
      try {
        io.deleteFile(file);
      } catch (IOException | RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
  }

  private String newMetadataFile(String suffix) {
    String location = ops.metadataFileLocation("relocated-" + rewriteId + "-" + suffix);
    written.add(location);
    return location;
  }

  private Snapshot rewriteSnapshot(TableMetadata base, Snapshot snapshot) {
    List<ManifestFile> manifests = ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()));
    List<ManifestFile> out = new ArrayList<>();
    for (ManifestFile m : manifests) {
      ManifestFile rewritten = rewrittenManifests.get(m.path());
      if (rewritten == null) {
        rewritten = rewriteManifest(base, m);
        rewrittenManifests.put(m.path(), rewritten);
      }
      out.add(rewritten);
    }
    String list = newMetadataFile("snap-" + snapshot.snapshotId() + ".avro");
    ManifestLists.write(base.formatVersion(), io.newOutputFile(list), snapshot.snapshotId(), snapshot.parentId(),
        snapshot.sequenceNumber(), snapshot.firstRowId(), out);
    return snapshot.withManifestListLocation(move.apply(list));
  }

  private ManifestFile rewriteManifest(TableMetadata base, ManifestFile manifest) {
    PartitionSpec spec = base.specsById().get(manifest.partitionSpecId());
    List<ManifestEntry<?>> entries = ManifestReader.read(io.newInputFile(manifest.path()), manifest,
        base.specsById());
    String location = newMetadataFile("m" + rewrittenManifests.size() + ".avro");
    ManifestWriter writer = ManifestWriter.write(base.formatVersion(), spec, base.schema(),
        io.newOutputFile(location), manifest.snapshotId(), manifest.content());
    try (ManifestWriter out = writer) {
      for (ManifestEntry<?> e : entries) {
        ContentFile file = e.file() instanceof DeleteFile deleteFile
            ? deletes.relocate(deleteFile, spec, e.status() != ManifestEntry.Status.DELETED)
            : DataFile.builder(spec).copy((DataFile) e.file()).withPath(move.apply(e.file().path())).build();
        out.copy(new ManifestEntry<>(e.status(), e.snapshotId(), e.dataSequenceNumber(), e.fileSequenceNumber(),
            file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rewrite manifest " + manifest.path(), e);
    }
    ManifestFile written = writer.toManifestFile().withPath(move.apply(location));
    return written.withSequenceNumbers(manifest.sequenceNumber(), manifest.minSequenceNumber())
        .withFirstRowId(manifest.content() == ManifestContent.DATA ? manifest.firstRowId() : null);
  }
}
