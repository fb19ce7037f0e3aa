package io.floe.format.commit;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.metadata.TableMetadata;
import java.util.List;
import java.util.Set;

/**
 * Adds data files; never conflicts with concurrent commits, so it is always retried on a lost race.
 * Reads none of the parent's manifests, except those it merges (see {@link ManifestMerger}).
 */
public final class AppendFiles extends SnapshotProducer {
  public AppendFiles(TableOperations ops) {
    super(ops);
  }

  public AppendFiles appendFile(DataFile file) {
    add(file);
    return this;
  }

  @Override
  protected String operation(boolean addsData, boolean removesData, boolean addsDeletes) {
    return "append";
  }

  /** An append of nothing still commits a snapshot, as Iceberg's does. */
  @Override
  protected boolean skipsEmptyCommit() {
    return false;
  }

  @Override
  protected Set<String> filesToRemove(TableMetadata base, List<ManifestEntry<DataFile>> liveEntries) {
    return Set.of();
  }

  /** An append removes nothing, so it never reads the base's data manifests. */
  @Override
  protected boolean mayRemoveDataFiles() {
    return false;
  }

  /** Small manifests are merged per commit.manifest-merge.* (Iceberg's merge append). */
  @Override
  protected boolean mergesManifests() {
    return true;
  }
}
