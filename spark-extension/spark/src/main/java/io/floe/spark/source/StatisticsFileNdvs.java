package io.floe.spark.source;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.stats.StatisticsFileReader;
import io.floe.format.stats.ThetaSketches;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distinct counts of one Puffin statistics file, per field id, read from the theta-sketch
 * blobs of its footer: the blob's {@code ndv} property, or the estimate of the decoded sketch when
 * the property is missing. Parsed files are kept in a small LRU keyed by path (a statistics file is
 * never rewritten in place), so planning a query reads each file at most once per JVM. A file that
 * is missing or corrupt yields null and a warning naming the file; the table stays readable. A
 * failure is remembered only for {@link #FAILURE_RETRY_NANOS}, so that the several estimates of one
 * plan do not re-read (and re-warn about) it, but a transient storage error does not hide the
 * statistics for the life of the JVM.
 */
public final class StatisticsFileNdvs {
  /** A distinct count and the snapshot it was computed from. */
  record Ndv(long value, long snapshotId) { }

  /** A cached file: its distinct counts, or null when it could not be read at {@code failedAt}. */
  private record Parsed(Map<Integer, Ndv> ndvs, long failedAt) {
    boolean expired(long now) {
      return ndvs == null && now - failedAt > FAILURE_RETRY_NANOS;
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(StatisticsFileNdvs.class);
  private static final String NDV_PROPERTY = "ndv";
  private static final int CACHED_FILES = 64;
  private static final int KEPT_WARNINGS = 20;
  private static final long FAILURE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final Map<String, Parsed> CACHE = Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Parsed> eldest) {
          return size() > CACHED_FILES;
        }
      });
  private static final List<String> WARNINGS = new ArrayList<>();

  private StatisticsFileNdvs() {
  }

  /** The distinct counts in {@code file} by field id, or null when the file cannot be read. */
  static Map<Integer, Ndv> read(FileIO io, StatisticsFile file, String table) {
    Parsed cached = CACHE.get(file.path());
    if (cached != null && !cached.expired(System.nanoTime())) {
      return cached.ndvs();
    }
    try {
      Map<Integer, Ndv> parsed = parse(io, file);
      CACHE.put(file.path(), new Parsed(parsed, 0L));
      return parsed;
    } catch (RuntimeException e) {
      // warned once per retry period: plans within it skip the file silently
      warn("Skipping statistics file " + file.path() + " of table " + table + " (snapshot "
          + file.snapshotId() + "): " + e.getMessage());
      CACHE.put(file.path(), new Parsed(null, System.nanoTime()));
      return null;
    }
  }

  private static Map<Integer, Ndv> parse(FileIO io, StatisticsFile file) {
    StatisticsFileReader.ThetaBlobs theta = StatisticsFileReader.thetaBlobs(io, file);
    PuffinReader reader = theta.reader();
    Map<Integer, Ndv> ndvs = new LinkedHashMap<>();
    for (BlobMetadata blob : theta.blobs()) {
      String property = blob.properties().get(NDV_PROPERTY);
      long value;
      if (property != null) {
        try {
          value = Long.parseLong(property.trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("blob at offset " + blob.offset() + " has an invalid ndv property '"
              + property + "'", e);
        }
      } else {
        value = Math.round(ThetaSketches.fromBlob(reader.readBlob(blob)).getEstimate());
      }
      if (value < 0) {
        throw new IllegalArgumentException("blob at offset " + blob.offset() + " has a negative ndv " + value);
      }
      ndvs.put(blob.inputFields().get(0), new Ndv(value, blob.snapshotId()));
    }
    return Collections.unmodifiableMap(ndvs);
  }

  private static void warn(String message) {
    LOG.warn(message);
    synchronized (WARNINGS) {
      WARNINGS.add(message);
      if (WARNINGS.size() > KEPT_WARNINGS) {
        WARNINGS.remove(0);
      }
    }
  }

  /** The most recent warnings about unreadable statistics files, oldest first (for tests and tooling). */
  public static List<String> recentWarnings() {
    synchronized (WARNINGS) {
      return List.copyOf(WARNINGS);
    }
  }
}
