package io.floe.spark.write;

import io.floe.format.FloeVersion;
import io.floe.format.deletes.DeletionVectorWriter;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.spark.source.DeleteLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Turns the positions a merge-on-read write deleted, merged per data file across tasks, into the
 * delete files of its commit, merging in each data file's existing deletes so that a data file
 * keeps exactly one delete file written by Floe:
 * <ul>
 *   <li>format v3: one Puffin file holding one deletion vector per data file, with the file's
 *       previous positions (its deletion vector and every position delete file that applies to
 *       it); the previous deletion vector and file-scoped position delete files are replaced;</li>
 *   <li>format v2: one Parquet position delete file per data file (in its partition's directory),
 *       with the positions of the file-scoped position delete files it replaces. Delete files
 *       covering several data files stay and keep applying.</li>
 * </ul>
 * Every file this write may create is listed in {@link #written()} before it is created, for clean-up.
 */
final class PositionDeltaDeleteFiles {
  private final TableMetadata base;
  private final FileIO io;
  private final Configuration conf;
  private final String dataLocation;
  private final String operationId;
  private final List<DeleteFile> added = new ArrayList<>();
  private final List<DeleteFile> replaced = new ArrayList<>();
  private final List<String> written = new ArrayList<>();
  private static final int MAX_THREADS = 8;
  private static final ThreadFactory DAEMON_THREADS = runnable -> {
    Thread thread = new Thread(runnable, "floe-delete-files");
    thread.setDaemon(true);
    return thread;
  };

  PositionDeltaDeleteFiles(TableMetadata base, FileIO io, Configuration conf, String dataLocation,
      String operationId) {
    this.base = base;
    this.io = io;
    this.conf = conf;
    this.dataLocation = dataLocation;
    this.operationId = operationId;
  }

  /**
   * Writes the delete files for {@code deleted} (new positions by data file path); {@code tasks}
   * gives each data file's entry, spec and applying delete files as the operation planned them.
   * The data files' previous deletes are read in one pass (deletion vectors sharing a Puffin file
   * in one read), merged in, and then written: v2 Parquet files in parallel, or the deletion
   * vectors into one Puffin file in path order.
   */
  void write(Map<String, RoaringPositionBitmap> deleted, Map<String, FileScanTask> tasks) {
    if (deleted.isEmpty()) {
      return;
    }
    boolean vectors = base.formatVersion() >= 3;
    List<String> paths = new ArrayList<>(new TreeMap<>(deleted).keySet());
    Map<String, List<DeleteFile>> previousDeletes = new LinkedHashMap<>();
    for (String path : paths) {
      FileScanTask task = tasks.get(path);
      List<DeleteFile> previous = fileScoped(task);
      replaced.addAll(previous);
      List<DeleteFile> merged = vectors ? positionDeletes(task) : previous;
      if (!merged.isEmpty()) {
        previousDeletes.put(path, merged);
      }
    }
    if (!previousDeletes.isEmpty()) {
      DeleteLoader.positionsOf(previousDeletes, conf).forEach((path, old) -> deleted.get(path).addAll(old));
    }
    if (vectors) {
      String location = dataLocation + "/dv-" + operationId + "-00001.puffin";
      written.add(location);
      try (DeletionVectorWriter dvs = new DeletionVectorWriter(io.newOutputFile(location), FloeVersion.createdBy())) {
        for (String path : paths) {
          FileScanTask task = tasks.get(path);
          dvs.add(task.file(), task.spec(), deleted.get(path));
        }
        added.addAll(dvs.finish());
      }
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(paths.size(), MAX_THREADS), DAEMON_THREADS);
    try {
      List<Future<Object>> results = new ArrayList<>();
      for (String path : paths) {
        FileScanTask task = tasks.get(path);
        String location = positionDeleteLocation(task);
        RoaringPositionBitmap positions = deleted.get(path);
        results.add(pool.submit(() ->
            PositionDeleteFileWriter.write(location, task.file(), task.spec(), positions, conf, base.properties())));
      }
      results.forEach(r -> added.add((DeleteFile) await(r)));
    } finally {
      pool.shutdownNow();
      awaitTermination(pool); // no file may appear after a failed write cleaned up
    }
  }

  private String positionDeleteLocation(FileScanTask task) {
    String dir = task.spec().isUnpartitioned() ? dataLocation
        : dataLocation + "/" + task.spec().partitionToPath(task.file().partition().toArray());
    String location = dir + "/" + String.format("delete-%s-%05d.parquet", operationId, written.size() + 1);
    written.add(location);
    return location;
  }

  private static Object await(Future<Object> result) {
    try {
      return result.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw new IllegalStateException("Cannot write delete files: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing delete files", e);
    }
  }

  private static void awaitTermination(ExecutorService pool) {
    try {
      pool.awaitTermination(5, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The position delete files and deletion vectors that apply to the task's data file. */
  private static List<DeleteFile> positionDeletes(FileScanTask task) {
    return task.deletes().stream().filter(d -> d.content() == FileContent.POSITION_DELETES).toList();
  }

  /** Those that apply to the task's data file only: its deletion vector and file-scoped position deletes. */
  private static List<DeleteFile> fileScoped(FileScanTask task) {
    String path = task.file().path();
    return positionDeletes(task).stream()
        .filter(d -> ContentFiles.isDeletionVector(d) || path.equals(ContentFiles.referencedDataFile(d)))
        .toList();
  }

  /** The new delete files: deletion vectors or position delete files. */
  List<DeleteFile> added() {
    return added;
  }

  /** The live delete files that the new ones replace (their positions are merged in). */
  List<DeleteFile> replaced() {
    return replaced;
  }

  /** Every file created so far, including ones not finished because of a failure. */
  List<String> written() {
    return written;
  }
}
