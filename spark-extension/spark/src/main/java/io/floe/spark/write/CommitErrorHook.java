package io.floe.spark.write;

/**
 * A fault for tests of what a write does when its commit ends in an {@link Error} (an
 * OutOfMemoryError while the new version is already published): after {@link #arm()}, the next
 * Spark write or row-level commit throws one right after its snapshot landed. Unarmed, it costs
 * nothing. A test hook: it can be armed only in a JVM started with {@code -Dfloe.test-hooks=true}
 * (python-tests/conftest.py).
 */
public final class CommitErrorHook {
  private static volatile boolean armed = false;

  private CommitErrorHook() {}

  public static void arm() {
    if (!Boolean.getBoolean("floe.test-hooks")) {
      throw new IllegalStateException("CommitErrorHook is a test hook: start the JVM with -Dfloe.test-hooks=true");
    }
    armed = true;
  }

  static void afterCommit() {
    if (armed) {
      armed = false;
      throw new OutOfMemoryError("injected by CommitErrorHook after the commit landed");
    }
  }
}
