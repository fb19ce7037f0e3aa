package io.floe.format.maintenance;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.MetadataLogEntry;
import io.floe.format.metadata.PartitionStatisticsFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Every file a table's metadata reaches, as orphan removal must keep it: the current metadata file
 * and every file of its metadata log, {@code version-hint.text}, and for every snapshot (of any ref,
 * or of none) its manifest list, manifests, data files, delete files and deletion-vector Puffin
 * files, plus the statistics and partition-statistics files. Manifests are read by a small pool.
 */
final class OrphanReachability {
  private static final String HINT = "version-hint.text";

  private OrphanReachability() {}

  /**
   * The locations (as written in the metadata) reachable from {@code metadata}; {@code metadataRoot}
   * is the directory holding the table's {@code metadata/} folder. {@code threads} manifests are
   * read at once.
   */
  static Set<String> of(FileIO io, TableMetadata metadata, String metadataRoot, int threads, String table) {
    Set<String> files = new LinkedHashSet<>();
    if (metadata.metadataFileLocation() != null) {
      files.add(metadata.metadataFileLocation());
    }
    for (MetadataLogEntry entry : metadata.previousFiles()) {
      files.add(entry.file());
    }
    files.add(metadataRoot + "/metadata/" + HINT);
    files.add(metadata.location() + "/metadata/" + HINT);
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      files.add(stats.path());
    }
    for (PartitionStatisticsFile stats : metadata.partitionStatisticsFiles()) {
      files.add(stats.path());
    }
    Map<String, ManifestFile> manifests = new LinkedHashMap<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      if (snapshot.manifestListLocation() == null) {
        throw new IllegalStateException("Cannot find the orphan files of table " + table + ": snapshot "
            + snapshot.snapshotId() + " embeds its manifests (format v1 without a manifest list), which Floe "
            + "cannot read; nothing was deleted. Rewrite the table's manifests first, or expire that snapshot");
      }
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
        manifests.putIfAbsent(manifest.path(), manifest);
      }
    }
    files.addAll(manifests.keySet());
    files.addAll(contentFiles(io, metadata, new ArrayList<>(manifests.values()), threads));
    return files;
  }

  private static List<String> contentFiles(FileIO io, TableMetadata metadata, List<ManifestFile> manifests,
      int threads) {
    List<String> paths = new ArrayList<>();
    if (threads <= 1 || manifests.size() <= 1) {
      for (ManifestFile manifest : manifests) {
        paths.addAll(entryPaths(io, metadata, manifest));
      }
      return paths;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, manifests.size()), r -> {
      Thread t = new Thread(r, "floe-orphan-manifest-reader");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<List<String>>> futures = new ArrayList<>();
      for (ManifestFile manifest : manifests) {
        futures.add(pool.submit(() -> entryPaths(io, metadata, manifest)));
      }
      for (Future<List<String>> f : futures) {
        paths.addAll(f.get());
      }
      return paths;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading manifests", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<String> entryPaths(FileIO io, TableMetadata metadata, ManifestFile manifest) {
    List<String> paths = new ArrayList<>();
    for (ManifestEntry<?> e : ManifestReader.read(io.newInputFile(manifest.path()), manifest, metadata.specsById())) {
      paths.add(e.file().path());
    }
    return paths;
  }
}
