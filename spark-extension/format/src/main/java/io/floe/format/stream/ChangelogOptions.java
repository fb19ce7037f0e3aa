package io.floe.format.stream;

import io.floe.format.OptionErrors;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The range of a change feed read ({@code create_changelog_view}'s {@code options}, or the read
 * options of {@code db.t.changes}), with Iceberg's option names: {@code start-snapshot-id}
 * (exclusive), {@code end-snapshot-id} (inclusive), or instead of them {@code start-timestamp} and
 * {@code end-timestamp} (milliseconds since the epoch: snapshots committed after the start and at
 * or before the end). Keys are case-insensitive; any other key is an error. Nulls: unset.
 */
public record ChangelogOptions(Long startSnapshotId, Long endSnapshotId, Long startTimestampMillis,
    Long endTimestampMillis) {
  public static final String START_SNAPSHOT_ID = "start-snapshot-id";
  public static final String END_SNAPSHOT_ID = "end-snapshot-id";
  public static final String START_TIMESTAMP = "start-timestamp";
  public static final String END_TIMESTAMP = "end-timestamp";
  public static final List<String> NAMES = List.of(START_SNAPSHOT_ID, END_SNAPSHOT_ID, START_TIMESTAMP, END_TIMESTAMP);

  /** The snapshots to read, start exclusive and end inclusive (nulls as in {@link ChangelogScan#planTasks}). */
  public record Range(Long startExclusive, Long endInclusive, boolean empty) {
    static final Range EMPTY = new Range(null, null, true);
  }

  /** The options of a change feed read of {@code table}; an unknown key or a value that is not a number is an error. */
  public static ChangelogOptions parse(String table, Map<String, String> options) {
    Long[] values = new Long[NAMES.size()];
    for (Map.Entry<String, String> e : options.entrySet()) {
      String key = e.getKey().toLowerCase(Locale.ROOT);
      int index = NAMES.indexOf(key);
      if (index < 0) {
        throw OptionErrors.invalidOption(e.getKey(), e.getValue(), "Cannot read the change feed of table " + table
            + ": unknown option '" + e.getKey() + "'; the change feed options are " + String.join(", ", NAMES));
      }
      values[index] = e.getValue() == null ? null : parseLong(table, key, e.getValue());
    }
    ChangelogOptions parsed = new ChangelogOptions(values[0], values[1], values[2], values[3]);
    parsed.check(table);
    return parsed;
  }

  private void check(String table) {
    if (startSnapshotId != null && startTimestampMillis != null) {
      throw both(table, START_SNAPSHOT_ID, START_TIMESTAMP, startTimestampMillis);
    }
    if (endSnapshotId != null && endTimestampMillis != null) {
      throw both(table, END_SNAPSHOT_ID, END_TIMESTAMP, endTimestampMillis);
    }
    if (startTimestampMillis != null && endTimestampMillis != null && startTimestampMillis > endTimestampMillis) {
      throw OptionErrors.invalidOption(START_TIMESTAMP, startTimestampMillis.toString(), "Cannot read the change"
          + " feed of table " + table + ": " + START_TIMESTAMP + " " + startTimestampMillis + " is after "
          + END_TIMESTAMP + " " + endTimestampMillis + "; give a start at or before the end");
    }
  }

  private static RuntimeException both(String table, String idOption, String timeOption, long value) {
    return OptionErrors.invalidOption(timeOption, Long.toString(value), "Cannot read the change feed of table "
        + table + ": set either " + idOption + " or " + timeOption + ", not both");
  }

  private static long parseLong(String table, String key, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw OptionErrors.invalidOption(key, value, "Cannot read the change feed of table " + table + ": invalid "
          + key + " '" + value + "', expected a whole number"
          + (key.endsWith("timestamp") ? " (milliseconds since the epoch)" : " (a snapshot id)"));
    }
  }

  /**
   * The snapshot range these options select on {@code metadata}'s current branch. Timestamps pick
   * the ancestors committed after {@code start-timestamp} and at or before {@code end-timestamp}; a
   * range in which no snapshot was committed is {@link Range#empty() empty}. Snapshot ids are
   * checked when the range is planned ({@link ChangelogScan#snapshots}).
   */
  public Range resolve(TableMetadata metadata) {
    Long end = endSnapshotId;
    if (endTimestampMillis != null) {
      Snapshot last = null;
      for (Snapshot s = metadata.currentSnapshot(); s != null; s = parent(metadata, s)) {
        if (s.timestampMillis() <= endTimestampMillis) {
          last = s;
          break;
        }
      }
      if (last == null) {
        return Range.EMPTY;
      }
      end = last.snapshotId();
    }
    Long start = startSnapshotId;
    if (startTimestampMillis != null) {
      Snapshot top = end == null ? metadata.currentSnapshot() : metadata.snapshot(end);
      Snapshot oldestAfter = null;
      for (Snapshot s = top; s != null && s.timestampMillis() > startTimestampMillis; s = parent(metadata, s)) {
        oldestAfter = s;
      }
      if (oldestAfter == null) {
        return top == null && end != null ? new Range(null, end, false) : Range.EMPTY;
      }
      start = oldestAfter.parentId();
    }
    return new Range(start, end, false);
  }

  private static Snapshot parent(TableMetadata metadata, Snapshot s) {
    return s.parentId() == null ? null : metadata.snapshot(s.parentId());
  }
}
