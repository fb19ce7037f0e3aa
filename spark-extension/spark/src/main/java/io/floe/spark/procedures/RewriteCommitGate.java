package io.floe.spark.procedures;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A pause point between a rewrite's writes and its commit, for tests of concurrent commits: after
 * {@link #hold()}, the next rewrite_data_files stops there ({@link #reached()} turns true) until
 * {@link #release()} (or two minutes pass). Unarmed, it costs nothing. A test hook: it can be
 * armed only in a JVM started with {@code -Dfloe.test-hooks=true} (python-tests/conftest.py).
 */
public final class RewriteCommitGate {
  private static volatile CountDownLatch gate = null;
  private static volatile boolean reached = false;

  private RewriteCommitGate() {}

  public static synchronized void hold() {
    if (!Boolean.getBoolean("floe.test-hooks")) {
      throw new IllegalStateException("RewriteCommitGate is a test hook: start the JVM with -Dfloe.test-hooks=true");
    }
    gate = new CountDownLatch(1);
    reached = false;
  }

  public static boolean reached() {
    return reached;
  }

  public static synchronized void release() {
    if (gate != null) {
      gate.countDown();
    }
    gate = null;
  }

  static void pass() {
    CountDownLatch current = gate;
    if (current == null) {
      return;
    }
    reached = true;
    try {
      current.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
