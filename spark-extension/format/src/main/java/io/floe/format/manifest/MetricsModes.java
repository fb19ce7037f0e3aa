package io.floe.format.manifest;

import io.floe.format.metadata.TableProperties;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which column metrics a data file records, from the table properties
 * {@code write.metadata.metrics.default} (default {@code truncate(16)}) and
 * {@code write.metadata.metrics.column.<full column name>}: {@code none} (nothing),
 * {@code counts} (sizes, value, null and NaN counts), {@code truncate(N)} (counts plus bounds,
 * strings cut to N code points and binary to N bytes) or {@code full} (counts plus exact bounds).
 */
public final class MetricsModes {
  public static final String DEFAULT_MODE = TableProperties.DEFAULT_WRITE_METRICS_MODE;
  public static final String COLUMN_MODE_PREFIX = TableProperties.METRICS_MODE_COLUMN_PREFIX;
  private static final Mode TRUNCATE_16 = new Mode(Kind.TRUNCATE, 16);
  private static final Pattern TRUNCATE = Pattern.compile("truncate\\((\\d+)\\)");

  public enum Kind { NONE, COUNTS, TRUNCATE, FULL }

  /** A metrics mode; {@code length} applies to {@link Kind#TRUNCATE} only. */
  public static final class Mode {
    private final Kind kind;
    private final int length;

    private Mode(Kind kind, int length) {
      this.kind = kind;
      this.length = length;
    }

    public Kind kind() {
      return kind;
    }

    /** The truncation length of a {@link Kind#TRUNCATE} mode. */
    public int length() {
      return length;
    }

    public boolean counts() {
      return kind != Kind.NONE;
    }

    public boolean bounds() {
      return kind == Kind.TRUNCATE || kind == Kind.FULL;
    }
  }

  private final Mode defaultMode;
  private final Map<String, String> properties;

  private MetricsModes(Mode defaultMode, Map<String, String> properties) {
    this.defaultMode = defaultMode;
    this.properties = properties;
  }

  public static MetricsModes from(Map<String, String> properties) {
    String value = properties.get(DEFAULT_MODE);
    return new MetricsModes(value == null ? TRUNCATE_16 : parse(value), properties);
  }

  public Mode modeFor(String columnName) {
    String value = properties.get(COLUMN_MODE_PREFIX + columnName);
    return value == null ? defaultMode : parse(value);
  }

  public static Mode parse(String value) {
    String mode = value.trim().toLowerCase(Locale.ROOT);
    switch (mode) {
      case "none":
        return new Mode(Kind.NONE, 0);
      case "counts":
        return new Mode(Kind.COUNTS, 0);
      case "full":
        return new Mode(Kind.FULL, 0);
      default:
        Matcher truncate = TRUNCATE.matcher(mode);
        if (truncate.matches()) {
          int length = Integer.parseInt(truncate.group(1));
          if (length > 0) {
            return new Mode(Kind.TRUNCATE, length);
          }
        }
        throw new IllegalArgumentException(
            "Invalid metrics mode: " + value + " (expected none, counts, truncate(N) with N > 0, or full)");
    }
  }
}
