package io.floe.format.commit;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.metadata.TableMetadata;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * A merge-on-read change in one snapshot: data files of inserted (or updated) rows, delete files
 * (position deletes or deletion vectors) for rows deleted from existing data files, and delete
 * files replaced by merged ones. The operation is {@code delete} when only deletes are added,
 * {@code append} when only data is, {@code overwrite} otherwise. Validation against concurrent
 * commits is set up with {@link #validateFromSnapshot} and the other {@code validate*} methods;
 * {@link #validateDataFilesExist} fails the commit when a data file that gets new deletes was
 * removed concurrently (its rows would silently come back in the file that replaced it).
 */
public final class RowDelta extends SnapshotProducer {
  public RowDelta(TableOperations ops) {
    super(ops);
  }

  public RowDelta addRows(DataFile dataFile) {
    add(dataFile);
    return this;
  }

  public RowDelta addDeletes(DeleteFile deleteFile) {
    addDelete(deleteFile);
    return this;
  }

  public RowDelta removeDeletes(DeleteFile deleteFile) {
    removeDelete(deleteFile);
    return this;
  }

  public RowDelta validateDataFilesExist(Collection<String> dataFilePaths) {
    requireDataFiles(dataFilePaths);
    return this;
  }

  @Override
  protected String operation(boolean addsData, boolean removesData, boolean addsDeletes) {
    if (addsData && !addsDeletes && !removesData) {
      return "append";
    }
    return addsData || removesData ? "overwrite" : "delete";
  }

  @Override
  protected Set<String> filesToRemove(TableMetadata base, List<ManifestEntry<DataFile>> liveEntries) {
    return Set.of();
  }

  /** Removes delete files only; the data files it deletes rows from are checked through requireDataFiles. */
  @Override
  protected boolean mayRemoveDataFiles() {
    return false;
  }
}
