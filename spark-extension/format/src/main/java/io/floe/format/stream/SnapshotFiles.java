package io.floe.format.stream;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The manifest entries one snapshot wrote: the data files it added or removed, the delete files it
 * added, or all its live data files. Order is stable for a snapshot (manifest-list order, then entry
 * order), so a position in the list is a stable streaming offset.
 */
final class SnapshotFiles {
  private SnapshotFiles() {}

  /** The data files {@code snapshot} added. */
  static List<ManifestEntry<DataFile>> addedData(FileIO io, TableMetadata metadata, Snapshot snapshot) {
    return entries(io, metadata, snapshot, ManifestContent.DATA, ownAdded(snapshot), ownStatus(snapshot,
        ManifestEntry.Status.ADDED));
  }

  /** The data files {@code snapshot} removed (copy-on-write delete or overwrite, or compaction). */
  static List<ManifestEntry<DataFile>> removedData(FileIO io, TableMetadata metadata, Snapshot snapshot) {
    return entries(io, metadata, snapshot, ManifestContent.DATA,
        m -> owned(snapshot, m) && m.hasDeletedFiles(), ownStatus(snapshot, ManifestEntry.Status.DELETED));
  }

  /** The delete files (position, deletion vector, equality) {@code snapshot} added. */
  static List<ManifestEntry<DeleteFile>> addedDeletes(FileIO io, TableMetadata metadata, Snapshot snapshot) {
    return entries(io, metadata, snapshot, ManifestContent.DELETES, ownAdded(snapshot), ownStatus(snapshot,
        ManifestEntry.Status.ADDED));
  }

  /** Every live data file of {@code snapshot}. */
  static List<ManifestEntry<DataFile>> liveData(FileIO io, TableMetadata metadata, Snapshot snapshot) {
    return entries(io, metadata, snapshot, ManifestContent.DATA,
        m -> m.hasAddedFiles() || m.hasExistingFiles(), ManifestEntry::isLive);
  }

  private static Predicate<ManifestFile> ownAdded(Snapshot snapshot) {
    return m -> owned(snapshot, m) && m.hasAddedFiles();
  }

  /** A manifest without a snapshot id (v1) may hold the snapshot's entries; its entries say. */
  private static boolean owned(Snapshot snapshot, ManifestFile m) {
    return m.snapshotId() == null || m.snapshotId() == snapshot.snapshotId();
  }

  private static <F extends ContentFile> Predicate<ManifestEntry<F>> ownStatus(Snapshot snapshot,
      ManifestEntry.Status status) {
    return e -> e.status() == status && e.snapshotId() != null && e.snapshotId() == snapshot.snapshotId();
  }

  @SuppressWarnings("unchecked")
  private static <F extends ContentFile> List<ManifestEntry<F>> entries(FileIO io, TableMetadata metadata,
      Snapshot snapshot, ManifestContent content, Predicate<ManifestFile> manifests,
      Predicate<ManifestEntry<F>> keep) {
    if (snapshot.manifestListLocation() == null) {
      throw new IllegalStateException("Cannot stream snapshot " + snapshot.snapshotId()
          + ": v1 snapshots without a manifest list are not supported");
    }
    List<ManifestEntry<F>> out = new ArrayList<>();
    for (ManifestFile m : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
      if (m.content() != content || !manifests.test(m)) {
        continue;
      }
      for (ManifestEntry<?> e : ManifestReader.read(io.newInputFile(m.path(), m.length()), m,
          metadata.specsById())) {
        if (keep.test((ManifestEntry<F>) e)) {
          out.add((ManifestEntry<F>) e);
        }
      }
    }
    return out;
  }
}
