package io.floe.spark.write;

import io.floe.format.commit.ForwardingTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.metadata.TableMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test hook for the streaming sink's kill -9 test (python-tests/test_streaming_exactly_once.py):
 * after {@link #arm}{@code (point, occurrence, marker)}, the {@code occurrence}-th time a micro-batch
 * commit reaches {@code point} it writes the file {@code marker} and sleeps, so that the test kills
 * the process exactly there. The points of a micro-batch commit:
 * <ul>
 *   <li>{@code BEFORE_COMMIT}: the batch's data files are written, nothing of its commit is;</li>
 *   <li>{@code BEFORE_PUBLISH}: its manifests and manifest list are written, its new metadata
 *       version is not yet published (the wrapper of {@link #around} pauses before the commit);</li>
 *   <li>{@code AFTER_PUBLISH}: its snapshot is published, Spark has not yet written the batch to the
 *       checkpoint's commit log (a restart must skip the batch, not commit it again).</li>
 * </ul>
 * Unarmed, each point costs one volatile read. It can be armed only in a JVM started with
 * {@code -Dfloe.test-hooks=true}, like {@link io.floe.spark.util.CommitGate}.
 */
public final class StreamingCommitPause {
  /** The named points of a micro-batch commit. */
  public enum Point { BEFORE_COMMIT, BEFORE_PUBLISH, AFTER_PUBLISH }

  private static final long PAUSE_MILLIS = 300_000;
  private static volatile Armed armed = null;

  private StreamingCommitPause() {}

  private record Armed(Point point, int occurrence, Path marker, AtomicInteger seen) {}

  /** Arms the pause: the {@code occurrence}-th (from 1) commit to reach {@code point} writes {@code marker} and sleeps. */
  public static void arm(String point, int occurrence, String marker) {
    if (!Boolean.getBoolean("floe.test-hooks")) {
      throw new IllegalStateException(
          "StreamingCommitPause is a test hook: start the JVM with -Dfloe.test-hooks=true");
    }
    if (occurrence < 1) {
      throw new IllegalArgumentException("occurrence must be at least 1, not " + occurrence);
    }
    armed = new Armed(Point.valueOf(point.toUpperCase(Locale.ROOT)), occurrence, Paths.get(marker),
        new AtomicInteger());
  }

  /** Called by the sink's batch commit at {@code point}: pauses there when armed for it. */
  static void reached(Point point) {
    Armed a = armed;
    if (a == null || a.point() != point || a.seen().incrementAndGet() != a.occurrence()) {
      return;
    }
    try {
      Files.writeString(a.marker(), point.name());
      Thread.sleep(PAUSE_MILLIS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {@code ops} that pause at {@link Point#BEFORE_PUBLISH} before each commit; {@code ops} itself when unarmed. */
  static TableOperations around(TableOperations ops) {
    if (armed == null) {
      return ops;
    }
    return new ForwardingTableOperations(ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata updated) {
        reached(Point.BEFORE_PUBLISH);
        super.commit(base, updated);
      }
    };
  }
}
