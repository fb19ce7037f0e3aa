package io.floe.format.commit;

import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compaction: replaces data files by new ones holding the same live rows, in one {@code replace}
 * snapshot. The position delete files and deletion vectors of the removed files go with them.
 * With {@link #dataSequenceNumber} the new files carry the sequence number of the snapshot the
 * rewrite read, so equality deletes committed after it still apply to the rewritten rows.
 * <p>
 * Validation from the starting snapshot ({@link #validateFromSnapshot}): the commit fails with
 * {@link ValidationException} when a rewritten file was removed concurrently, or when a concurrent
 * commit added position deletes or a deletion vector that may apply to a rewritten file (the rows
 * it deletes would come back in the new files). Concurrent appends never conflict; concurrent
 * equality deletes conflict only when the new files carry this commit's own sequence number.
 */
public final class RewriteFiles extends SnapshotProducer {
  private final Map<String, DataFile> rewritten = new LinkedHashMap<>();
  private Long dataSequenceNumber = null;
  private Long startingSnapshotId = null;
  private boolean validate = false;

  public RewriteFiles(TableOperations ops) {
    super(ops);
  }

  /** A live data file whose rows the added files now hold. */
  public RewriteFiles rewriteFile(DataFile file) {
    rewritten.put(file.path(), file);
    return this;
  }

  /** A new data file holding rows of the rewritten files. */
  public RewriteFiles addFile(DataFile file) {
    add(file);
    return this;
  }

  /** The data sequence number of the added files: the starting snapshot's sequence number. */
  public RewriteFiles dataSequenceNumber(long sequenceNumber) {
    this.dataSequenceNumber = sequenceNumber;
    return this;
  }

  @Override
  public RewriteFiles validateFromSnapshot(Long snapshotId) {
    super.validateFromSnapshot(snapshotId);
    this.startingSnapshotId = snapshotId;
    this.validate = true;
    return this;
  }

  @Override
  protected Long addedDataSequenceNumber() {
    return dataSequenceNumber;
  }

  @Override
  protected String operation(boolean addsData, boolean removesData, boolean addsDeletes) {
    return "replace";
  }

  @Override
  protected Set<String> filesToRemove(TableMetadata base, List<ManifestEntry<DataFile>> liveEntries) {
    if (validate && !rewritten.isEmpty()) {
      validateNoNewDeletes(base);
    }
    return rewritten.keySet();
  }

  /** Fails when a snapshot after the starting one added deletes that may apply to a rewritten file. */
  private void validateNoNewDeletes(TableMetadata base) {
    Set<String> partitions = new HashSet<>();
    rewritten.values().forEach(f -> partitions.add(f.specId() + "/" + f.partition()));
    for (Snapshot snapshot : snapshotsSinceStart(base)) {
      for (ManifestFile manifest : ManifestLists.read(io().newInputFile(snapshot.manifestListLocation()))) {
        if (manifest.content() != ManifestContent.DELETES || !manifest.hasAddedFiles()
            || manifest.snapshotId() == null || manifest.snapshotId() != snapshot.snapshotId()) {
          continue;
        }
        for (ManifestEntry<DeleteFile> e : ManifestReader.readDeletes(io().newInputFile(manifest.path()), manifest,
            base.specsById())) {
          if (e.status() == ManifestEntry.Status.ADDED && Long.valueOf(snapshot.snapshotId()).equals(e.snapshotId())) {
            checkDeleteFile(base, snapshot, e.file(), partitions);
          }
        }
      }
    }
  }

  private void checkDeleteFile(TableMetadata base, Snapshot snapshot, DeleteFile file, Set<String> partitions) {
    boolean samePartition = partitions.contains(file.specId() + "/" + file.partition());
    String conflict = null;
    if (file.content() == FileContent.POSITION_DELETES) {
      String referenced = ContentFiles.referencedDataFile(file);
      if (referenced != null ? rewritten.containsKey(referenced) : samePartition) {
        conflict = "added " + (ContentFiles.isDeletionVector(file) ? "deletion vector " : "position delete file ")
            + ContentFiles.deleteFileKey(file) + " for " + (referenced != null ? "data file " + referenced
            : "data files of partition " + file.partition());
      }
    } else if (file.content() == FileContent.EQUALITY_DELETES && dataSequenceNumber == null) {
      PartitionSpec spec = base.specsById().get(file.specId());
      if (spec == null || spec.isUnpartitioned() || samePartition) {
        conflict = "added equality delete file " + file.path() + " that may delete rewritten rows";
      }
    }
    if (conflict != null) {
      throw new ValidationException("Cannot commit rewrite of table " + ops().tableName() + ": concurrent snapshot "
          + snapshot.snapshotId() + " (" + snapshot.operation() + ", committed after snapshot " + startingSnapshotId
          + " that the rewrite read) " + conflict + ", which the rewritten files no longer hold. Run the rewrite "
          + "again");
    }
  }

  /** The snapshots after the starting one on the current branch, oldest first (see {@link ValidationHistory}). */
  private List<Snapshot> snapshotsSinceStart(TableMetadata base) {
    List<Snapshot> newer = ValidationHistory.since(base, startingSnapshotId);
    if (newer == null) {
      throw new ValidationException("Cannot commit rewrite of table " + ops().tableName() + ": the snapshot it read ("
          + startingSnapshotId + ") is no longer an ancestor of the current snapshot, or snapshots committed after "
          + "it were expired (the table was rolled back, replaced or expired concurrently). Run the rewrite again");
    }
    return newer;
  }
}
