package io.floe.format.commit;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.DataOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Publishes a snapshot that is not on main (e.g. staged by write-audit-publish) onto main. When the
 * snapshot's parent is the current snapshot, main simply moves to it (fast-forward). Otherwise its
 * changes are re-applied as a new snapshot whose summary has {@code source-snapshot-id} (and
 * {@code published-wap-id} when the source has {@code wap.id}): an {@code append}'s added data
 * files are appended; an {@code overwrite} that replaced partitions (summary
 * {@code replace-partitions=true}) replaces the same partitions again. Other snapshots, snapshots
 * already on main and snapshots already cherry-picked are refused with IllegalArgumentException.
 */
public final class Cherrypick {
  public static final String SOURCE_SNAPSHOT_ID = "source-snapshot-id";
  public static final String PUBLISHED_WAP_ID = "published-wap-id";
  public static final String WAP_ID = "wap.id";
  private static final int FAST_FORWARD_ATTEMPTS = 4;

  private final TableOperations ops;

  public Cherrypick(TableOperations ops) {
    this.ops = ops;
  }

  /** Publishes {@code snapshotId} on main and returns the new current snapshot. */
  public Snapshot apply(long snapshotId) {
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ops.refresh();
      Snapshot source = checkCanPublish(base, snapshotId, ops.tableName());
      Snapshot current = base.currentSnapshot();
      if (current != null && source.parentId() != null && source.parentId() == current.snapshotId()) {
        TableMetadata updated = TableMetadata.buildFrom(base)
            .setBranchSnapshot(source.snapshotId(), SnapshotRef.MAIN_BRANCH).build();
        try {
          ops.commit(base, updated);
          return ops.current().currentSnapshot();
        } catch (CommitFailedException e) {
          if (attempt >= FAST_FORWARD_ATTEMPTS) {
            throw e;
          }
        }
      } else {
        return reapply(base, source).commit();
      }
    }
  }

  /** The snapshot to publish, after checking it exists and is neither on main nor published already. */
  static Snapshot checkCanPublish(TableMetadata base, long snapshotId, String table) {
    Snapshot source = ManageSnapshots.requireSnapshot(base, snapshotId, table, "cherry-pick a snapshot into");
    if (ManageSnapshots.isCurrentAncestor(base, snapshotId)) {
      throw new IllegalArgumentException("Cannot cherry-pick snapshot " + snapshotId + " of table " + table
          + ": it is already an ancestor of the current snapshot " + ManageSnapshots.currentId(base));
    }
    String wapId = source.summary().get(WAP_ID);
    Snapshot current = base.currentSnapshot();
    for (Snapshot s : ManageSnapshots.ancestors(base, current == null ? null : current.snapshotId())) {
      Map<String, String> summary = s.summary();
      if (Long.toString(snapshotId).equals(summary.get(SOURCE_SNAPSHOT_ID))
          || (wapId != null && wapId.equals(summary.get(PUBLISHED_WAP_ID)))) {
        throw new IllegalArgumentException("Cannot cherry-pick snapshot " + snapshotId + " of table " + table
            + ": it was already published as snapshot " + s.snapshotId()
            + (wapId == null ? "" : " (wap.id " + wapId + ")"));
      }
    }
    return source;
  }

  private SnapshotProducer reapply(TableMetadata base, Snapshot source) {
    String table = ops.tableName();
    String operation = source.operation();
    boolean replacePartitions = DataOperations.OVERWRITE.equals(operation)
        && "true".equals(source.summary().get("replace-partitions"));
    if (!DataOperations.APPEND.equals(operation) && !replacePartitions) {
      throw new IllegalArgumentException("Cannot cherry-pick snapshot " + source.snapshotId() + " of table " + table
          + ": its parent is not the current snapshot, and only append snapshots and overwrites that replaced "
          + "partitions can be re-applied (operation is " + operation + ")");
    }
    List<DataFile> added = addedFiles(base, source, table);
    SnapshotProducer producer;
    if (replacePartitions) {
      OverwriteFiles overwrite = new OverwriteFiles(ops).replaceAddedPartitions();
      added.forEach(overwrite::addFile);
      producer = overwrite;
    } else {
      AppendFiles append = new AppendFiles(ops);
      added.forEach(append::appendFile);
      producer = append;
    }
    producer.set(SOURCE_SNAPSHOT_ID, Long.toString(source.snapshotId()));
    String wapId = source.summary().get(WAP_ID);
    if (wapId != null) {
      producer.set(PUBLISHED_WAP_ID, wapId);
    }
    return producer;
  }

  /** The data files {@code source} added; a snapshot that also added delete files is refused. */
  private List<DataFile> addedFiles(TableMetadata base, Snapshot source, String table) {
    if (source.manifestListLocation() == null) {
      throw new IllegalArgumentException("Cannot cherry-pick snapshot " + source.snapshotId() + " of table " + table
          + ": it has no manifest list (format v1 manifests are not supported here)");
    }
    List<DataFile> out = new ArrayList<>();
    for (ManifestFile manifest : ManifestLists.read(ops.io().newInputFile(source.manifestListLocation()))) {
      if (manifest.snapshotId() != null && manifest.snapshotId() != source.snapshotId()) {
        continue; // written by an earlier snapshot: nothing this one added
      }
      for (ManifestEntry<?> e : ManifestReader.read(ops.io().newInputFile(manifest.path()), manifest,
          base.specsById())) {
        if (e.status() != ManifestEntry.Status.ADDED || e.snapshotId() == null
            || e.snapshotId() != source.snapshotId()) {
          continue;
        }
        if (!(e.file() instanceof DataFile file)) {
          throw new IllegalArgumentException("Cannot cherry-pick snapshot " + source.snapshotId() + " of table "
              + table + ": it adds delete file " + e.file().path() + ", which cannot be re-applied");
        }
        out.add(DataFile.builder(base.specsById().get(file.specId())).copy(file).withFirstRowId(null).build());
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("Cannot cherry-pick snapshot " + source.snapshotId() + " of table " + table
          + ": it adds no data files");
    }
    return out;
  }
}
