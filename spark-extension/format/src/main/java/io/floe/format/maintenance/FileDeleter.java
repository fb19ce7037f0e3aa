package io.floe.format.maintenance;

import io.floe.format.io.FileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deletes the files of a checked {@link CleanupPlan} with a pool of threads. A failed delete is
 * logged and counted, never fatal; a file that no longer exists counts as deleted.
 */
public final class FileDeleter {
  /** Threads used when the caller does not say (max_concurrent_deletes). */
  public static final int DEFAULT_THREADS = 4;

  private static final System.Logger LOG = System.getLogger(FileDeleter.class.getName());

  private FileDeleter() {}

  public static DeletionCounts delete(FileIO io, CleanupPlan plan, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("Invalid number of concurrent deletes " + threads + ": must be at least 1");
    }
    plan.checkInside();
    Map<CleanupPlan.Kind, AtomicLong> deleted = new EnumMap<>(CleanupPlan.Kind.class);
    for (CleanupPlan.Kind kind : CleanupPlan.Kind.values()) {
      deleted.put(kind, new AtomicLong());
    }
    AtomicLong failures = new AtomicLong();
    if (plan.files().isEmpty()) {
      return DeletionCounts.NONE;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, plan.files().size()), r -> {
      Thread t = new Thread(r, "floe-expire-delete");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (Map.Entry<String, CleanupPlan.Kind> e : plan.files().entrySet()) {
        futures.add(pool.submit(() -> {
          try {
            io.deleteFile(e.getKey());
            deleted.get(e.getValue()).incrementAndGet();
          } catch (IOException | RuntimeException ex) {
            failures.incrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "Failed to delete " + e.getValue().description() + " " + e.getKey()
                + " of expired snapshots (left behind; remove_orphan_files can remove it later)", ex);
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while deleting the files of expired snapshots", ex);
    } catch (ExecutionException ex) {
      throw new IllegalStateException("Unexpected failure while deleting the files of expired snapshots", ex);
    } finally {
      pool.shutdownNow();
    }
    return new DeletionCounts(deleted.get(CleanupPlan.Kind.DATA).get(),
        deleted.get(CleanupPlan.Kind.POSITION_DELETES).get(), deleted.get(CleanupPlan.Kind.EQUALITY_DELETES).get(),
        deleted.get(CleanupPlan.Kind.MANIFEST).get(), deleted.get(CleanupPlan.Kind.MANIFEST_LIST).get(),
        deleted.get(CleanupPlan.Kind.STATISTICS).get(), failures.get());
  }
}
