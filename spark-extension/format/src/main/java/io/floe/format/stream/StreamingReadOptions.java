package io.floe.format.stream;

import io.floe.format.OptionErrors;
import java.util.Locale;
import java.util.Map;

/**
 * The read options of a streaming source, with Iceberg's names and semantics (docs/streaming.md).
 * Keys are matched case-insensitively, as Spark passes options.
 *
 * @param fromTimestampMillis {@code stream-from-timestamp}: start at the first snapshot committed at
 *     or after this time (epoch millis); null starts at the oldest snapshot of the current branch
 * @param maxFilesPerBatch {@code streaming-max-files-per-micro-batch}
 * @param maxRowsPerBatch {@code streaming-max-rows-per-micro-batch}: a batch never exceeds it, except
 *     that a single file with more rows is read alone (so the stream always makes progress)
 */
public record StreamingReadOptions(Long fromTimestampMillis, int maxFilesPerBatch, long maxRowsPerBatch,
    boolean skipDeleteSnapshots, boolean skipOverwriteSnapshots) {
  public static final String STREAM_FROM_TIMESTAMP = "stream-from-timestamp";
  public static final String MAX_FILES_PER_MICRO_BATCH = "streaming-max-files-per-micro-batch";
  public static final String MAX_ROWS_PER_MICRO_BATCH = "streaming-max-rows-per-micro-batch";
  public static final String SKIP_DELETE_SNAPSHOTS = "streaming-skip-delete-snapshots";
  public static final String SKIP_OVERWRITE_SNAPSHOTS = "streaming-skip-overwrite-snapshots";

  public static final StreamingReadOptions DEFAULTS =
      new StreamingReadOptions(null, Integer.MAX_VALUE, Long.MAX_VALUE, false, false);

  public StreamingReadOptions {
    if (maxFilesPerBatch <= 0 || maxRowsPerBatch <= 0) {
      throw new IllegalArgumentException("Invalid streaming limits: " + maxFilesPerBatch + " files, "
          + maxRowsPerBatch + " rows");
    }
  }

  /** Parses the options of {@code table}'s stream; unknown keys are ignored (they belong to other layers). */
  public static StreamingReadOptions parse(String table, Map<String, String> options) {
    String timestamp = get(options, STREAM_FROM_TIMESTAMP);
    return new StreamingReadOptions(
        timestamp == null ? null : parseLong(table, STREAM_FROM_TIMESTAMP, timestamp, 0L),
        (int) parseLong(table, MAX_FILES_PER_MICRO_BATCH, get(options, MAX_FILES_PER_MICRO_BATCH),
            Integer.MAX_VALUE, 1L, Integer.MAX_VALUE),
        parseLong(table, MAX_ROWS_PER_MICRO_BATCH, get(options, MAX_ROWS_PER_MICRO_BATCH), Long.MAX_VALUE, 1L,
            Long.MAX_VALUE),
        parseBoolean(table, SKIP_DELETE_SNAPSHOTS, get(options, SKIP_DELETE_SNAPSHOTS)),
        parseBoolean(table, SKIP_OVERWRITE_SNAPSHOTS, get(options, SKIP_OVERWRITE_SNAPSHOTS)));
  }

  private static String get(Map<String, String> options, String key) {
    for (Map.Entry<String, String> e : options.entrySet()) {
      if (e.getKey().toLowerCase(Locale.ROOT).equals(key)) {
        return e.getValue();
      }
    }
    return null;
  }

  private static long parseLong(String table, String key, String value, long min) {
    return parseLong(table, key, value, min, min, Long.MAX_VALUE);
  }

  private static long parseLong(String table, String key, String value, long dflt, long min, long max) {
    if (value == null) {
      return dflt;
    }
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw OptionErrors.invalidOption(key, value, "Cannot stream from table " + table + ": invalid " + key + " '"
        + value + "', expected a whole number from " + min + " to " + max
        + (key.equals(STREAM_FROM_TIMESTAMP) ? " (milliseconds since the epoch)" : ""));
  }

  private static boolean parseBoolean(String table, String key, String value) {
    if (value == null) {
      return false;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("true") || v.equals("false")) {
      return v.equals("true");
    }
    throw OptionErrors.invalidOption(key, value, "Cannot stream from table " + table + ": invalid " + key + " '"
        + value + "', expected true or false");
  }
}
