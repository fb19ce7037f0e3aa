package io.floe.format.index;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.HashSet;
import java.util.Set;

/**
 * Which of some data files a snapshot still lists: what a segment merge keeps covered. Reads the
 * snapshot's data manifests one at a time and keeps only the paths asked about, so memory grows
 * with the question, not with the table.
 */
final class IndexLiveFiles {
  private IndexLiveFiles() {}

  /** The paths among {@code candidates} that are live data files of {@code snapshot} of {@code metadata}. */
  static Set<String> among(FileIO io, TableMetadata metadata, Snapshot snapshot, Set<String> candidates) {
    Set<String> live = new HashSet<>();
    if (candidates.isEmpty() || snapshot == null) {
      return live;
    }
    for (ManifestFile manifest : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
      if (manifest.content() != ManifestContent.DATA
          || !(manifest.hasAddedFiles() || manifest.hasExistingFiles())) {
        continue;
      }
      for (ManifestEntry<DataFile> entry : ManifestReader.readData(io.newInputFile(manifest.path()), manifest,
          metadata.specsById())) {
        if (entry.isLive() && candidates.contains(entry.file().path())) {
          live.add(entry.file().path());
        }
      }
    }
    return live;
  }
}
