package io.floe.format.maintenance;

import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.Locations;
import io.floe.format.io.WriteMarkers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The files of writes and commits still in flight, which orphan removal must keep: a file is in
 * flight when its name carries the id of an operation whose marker ({@link WriteMarkers}) exists
 * when checked, which is after the listing. A marker last modified before {@code staleBefore}
 * (older than the cutoff and than the default three days) is abandoned, by a driver that died: it
 * protects nothing and is itself an orphan.
 *
 * <p>Why checking after the listing is enough: a writer creates its marker before its first file
 * and deletes it only after its snapshot is published. A listed file was written after its
 * marker was created; if the marker is gone when checked, the write published (and the re-read of
 * the latest metadata, which follows this check, reaches the file) or gave up. A file is never
 * older than its operation's marker, so files last modified before {@code staleBefore} need no
 * check: with the default {@code older_than} none is made.
 */
final class InFlightFiles {
  private final FileIO io;
  private final Set<String> markerDirs = new LinkedHashSet<>();
  private final Set<String> staleMarkers = new HashSet<>();
  private final List<String> staleListed = new ArrayList<>();
  private final Map<String, Boolean> liveById = new HashMap<>();

  private InFlightFiles(FileIO io) {
    this.io = io;
  }

  /**
   * Where markers are looked for: {@code dirs} (the table's data and metadata folders) and the
   * folder of every marker in {@code listed}.
   */
  static InFlightFiles of(FileIO io, List<FileInfo> listed, Collection<String> dirs, long staleBefore) {
    InFlightFiles files = new InFlightFiles(io);
    files.markerDirs.addAll(dirs);
    for (FileInfo file : listed) {
      String location = file.location();
      if (WriteMarkers.markerOperation(WriteMarkers.fileName(location)) == null) {
        continue;
      }
      files.markerDirs.add(location.substring(0, location.lastIndexOf('/')));
      if (file.modifiedMillis() < staleBefore) {
        files.staleMarkers.add(Locations.canonical(location));
        files.staleListed.add(location);
      }
    }
    return files;
  }

  /** The {@code candidates} written by an operation whose marker exists now (checked once per operation). */
  Set<String> inFlight(Collection<String> candidates) {
    Set<String> kept = new HashSet<>();
    for (String candidate : candidates) {
      for (String id : WriteMarkers.operationIds(WriteMarkers.fileName(candidate))) {
        if (liveById.computeIfAbsent(id, this::hasLiveMarker)) {
          kept.add(candidate);
          break;
        }
      }
    }
    return kept;
  }

  /** Markers found by the listing that are abandoned: orphans themselves. */
  List<String> staleMarkers() {
    return staleListed;
  }

  private boolean hasLiveMarker(String operationId) {
    for (String dir : markerDirs) {
      String marker = WriteMarkers.location(dir, operationId);
      try {
        if (io.exists(marker) && !staleMarkers.contains(Locations.canonical(marker))) {
          return true;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot check in-flight marker " + marker + "; nothing was deleted", e);
      }
    }
    return false;
  }
}
