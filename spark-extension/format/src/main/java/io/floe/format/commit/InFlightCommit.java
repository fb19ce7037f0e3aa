package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.io.WriteMarkers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What a commit does around the metadata files it writes, so that orphan removal running at the
 * same time cannot corrupt the table: {@link #begin} creates the in-flight marker of the commit
 * ({@link WriteMarkers}) in {@code metadata/} before its first manifest is written, {@link #end}
 * deletes it after the outcome is known, and {@link #checkAddedFilesExist} refuses to publish a
 * snapshot whose new files are gone.
 */
final class InFlightCommit {
  /** Above this many files, existence is checked by a small pool (object stores answer slowly). */
  private static final int SERIAL_CHECKS = 16;
  private static final int CHECK_THREADS = 8;

  private InFlightCommit() {}

  /** Runs {@code commit} between {@link #begin} and {@link #end} of the marker of {@code commitUuid}. */
  static <T> T around(TableOperations ops, String commitUuid, java.util.function.Supplier<T> commit) {
    String marker = begin(ops, commitUuid);
    try {
      return commit.get();
    } finally {
      end(ops, marker);
    }
  }

  /** Creates the marker of commit {@code commitUuid}; returns its location. */
  private static String begin(TableOperations ops, String commitUuid) {
    String marker = WriteMarkers.location(ops.metadataRoot() + "/metadata", commitUuid);
    try {
      ops.io().newOutputFile(marker).create().close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot commit to table " + ops.tableName() + ": cannot create " + marker, e);
    }
    return marker;
  }

  /** Deletes the marker; best effort (a leftover marker only keeps files from orphan removal). */
  private static void end(TableOperations ops, String marker) {
    try {
      ops.io().deleteFile(marker);
    } catch (IOException | RuntimeException ignored) {
      // orphan removal treats a marker older than its default age as abandoned
    }
  }

  /**
   * Throws {@link ValidationException} naming a missing file when one of {@code locations} (the
   * files a commit adds) does not exist: publishing would make the table unreadable.
   */
  static void checkAddedFilesExist(FileIO io, String table, Collection<String> locations) {
    List<String> files = new ArrayList<>(new LinkedHashSet<>(locations));
    List<String> missing = new ArrayList<>();
    if (files.size() <= SERIAL_CHECKS) {
      for (String file : files) {
        if (!exists(io, file)) {
          missing.add(file);
        }
      }
    } else {
      missing.addAll(missingInParallel(io, files));
    }
    if (!missing.isEmpty()) {
      throw new ValidationException("Cannot commit to table " + table + ": " + missing.size() + " file(s) this "
          + "commit adds no longer exist, e.g. " + missing.get(0) + ". They were deleted while the write was in "
          + "flight (for example by remove_orphan_files with a short older_than). The table was not changed; "
          + "run the write again");
    }
  }

  private static boolean exists(FileIO io, String file) {
    try {
      return io.exists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check that " + file + " exists before committing", e);
    }
  }

  private static List<String> missingInParallel(FileIO io, List<String> files) {
    ExecutorService pool = Executors.newFixedThreadPool(CHECK_THREADS, r -> {
      Thread t = new Thread(r, "floe-commit-file-check");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<Boolean>> futures = new ArrayList<>();
      for (String file : files) {
        futures.add(pool.submit(() -> exists(io, file)));
      }
      List<String> missing = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        if (!futures.get(i).get()) {
          missing.add(files.get(i));
        }
      }
      return missing;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while checking the files of a commit", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause);
    } finally {
      pool.shutdownNow();
    }
  }
}
