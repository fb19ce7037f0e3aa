package io.floe.spark.util;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress of one long operation (compaction, snapshot expiry, statistics, index builds): one INFO
 * line per phase, with its counts and how long the phase took, through the logger {@value #LOGGER}:
 * <pre>
 *   expire_snapshots floe.db.t: planned 12 snapshots to expire, 340 files to delete in 0.2 s
 *   expire_snapshots floe.db.t: committed in 0.1 s
 *   expire_snapshots floe.db.t: deleted 340 of 340 files (...) in 1.2 s
 * </pre>
 * {@code floe sql} shows this logger's lines on stderr while the statement runs (docs/progress.md).
 */
public final class PhaseLog {
  /** The logger of every progress line, one name to switch on or off. */
  public static final String LOGGER = "io.floe.progress";
  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  private final String prefix;
  private long last;

  private PhaseLog(String operation, String table) {
    this.prefix = operation + " " + table + ": ";
    this.last = System.nanoTime();
  }

  /** Starts timing {@code operation} (a procedure or statement name) on {@code table}. */
  public static PhaseLog start(String operation, String table) {
    return new PhaseLog(operation, table);
  }

  /** Logs that a phase ended, {@code what} naming it with its counts; times the next phase from now. */
  public void phase(String what) {
    long now = System.nanoTime();
    if (LOG.isInfoEnabled()) {
      LOG.info("{}{} in {} s", prefix, what, String.format(Locale.ROOT, "%.1f", (now - last) / 1e9));
    }
    last = now;
  }
}
