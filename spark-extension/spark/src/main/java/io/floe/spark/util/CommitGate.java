package io.floe.spark.util;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A test hook that holds a write between its work and its commit, like Delta's
 * {@code ExecutionPhaseLock}: after {@link #hold}{@code (table)}, the next write of that table to
 * reach its commit (a DELETE, UPDATE or MERGE after its scan and its file writes, an INSERT, or
 * {@code rewrite_data_files} after rewriting its groups) stops there, {@link #reached} turns true,
 * and it waits until {@link #release} (or two minutes pass); every other write, including other
 * writes of the same table meanwhile, passes. Tests commit a concurrent change while the held
 * write waits, then release it, for the same interleaving every run (python-tests/row_level_tables.py).
 *
 * <p>One gate per table name ({@code catalog.namespace.table}). Unarmed, a write pays one map lookup.
 * It can be armed only in a JVM started with {@code -Dfloe.test-hooks=true} (python-tests/conftest.py).
 */
public final class CommitGate {
  private static final Map<String, Armed> GATES = new ConcurrentHashMap<>();

  private CommitGate() {}

  private static final class Armed {
    final CountDownLatch released = new CountDownLatch(1);
    volatile boolean claimed = false;
  }

  /** Arms the gate of {@code table}: its next write to reach its commit waits there. */
  public static synchronized void hold(String table) {
    if (!Boolean.getBoolean("floe.test-hooks")) {
      throw new IllegalStateException("CommitGate is a test hook: start the JVM with -Dfloe.test-hooks=true");
    }
    release(table);
    GATES.put(table, new Armed());
  }

  /** Whether a write of {@code table} is waiting at the armed gate (or waited there since it was armed). */
  public static boolean reached(String table) {
    Armed armed = GATES.get(table);
    return armed != null && armed.claimed;
  }

  /** Lets the held write of {@code table} commit and disarms the gate. */
  public static synchronized void release(String table) {
    Armed armed = GATES.remove(table);
    if (armed != null) {
      armed.released.countDown();
    }
  }

  /** Called by every write of {@code table} just before it commits: waits when it is the one held. */
  public static void pass(String table) {
    Armed armed = GATES.get(table);
    if (armed == null) {
      return;
    }
    synchronized (armed) {
      if (armed.claimed) {
        return;
      }
      armed.claimed = true;
    }
    try {
      armed.released.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
