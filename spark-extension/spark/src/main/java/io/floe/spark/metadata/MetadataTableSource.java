package io.floe.spark.metadata;

import io.floe.format.ErrorClass;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.util.SparkExceptions;
import java.util.List;

/**
 * What a metadata table reads: the base table's name, its file IO, one version of its metadata,
 * and the snapshot the file-level tables describe (the current one, or the one picked by time
 * travel; null when the table has no snapshot).
 */
public record MetadataTableSource(String tableName, FileIO io, TableMetadata metadata, Snapshot snapshot) {

  /** The manifests listed by a snapshot's manifest list. */
  List<ManifestFile> manifests(Snapshot snap) {
    if (snap.manifestListLocation() == null) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot read metadata tables of " + tableName
          + ": snapshot " + snap.snapshotId()
          + " is a v1 snapshot without a manifest list; rewrite the table's manifests "
          + "(CALL system.rewrite_manifests) to give it one");
    }
    return ManifestLists.read(io.newInputFile(snap.manifestListLocation()));
  }

  /** Every entry of a manifest (DELETED ones included), with inherited snapshot ids and sequence numbers. */
  List<ManifestEntry<?>> entries(ManifestFile manifest) {
    return ManifestReader.read(io.newInputFile(manifest.path()), manifest, metadata.specsById());
  }
}
