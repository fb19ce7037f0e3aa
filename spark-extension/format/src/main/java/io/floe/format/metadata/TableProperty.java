package io.floe.format.metadata;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One table property Floe knows: its key, the kind of value it takes, its default (as the string a
 * user would write, or null when it has none) and the values it accepts. {@link TableProperties}
 * lists every known property; readers parse through it so that a value is accepted by the
 * statement that sets it exactly when the writer that reads it can use it.
 */
public final class TableProperty {
  /** The kinds of value a table property takes. */
  public enum Kind { BOOLEAN, INT, LONG, ENUM, METRICS_MODE, BYTE_SIZE, LOCATION }

  private static final Pattern TRUNCATE = Pattern.compile("truncate\\((\\d{1,9})\\)");
  private static final Pattern BYTE_SIZE = Pattern.compile("(\\d{1,18})(b|[kmgtp]b?)?");

  private final String key;
  private final Kind kind;
  private final String defaultValue;
  private final long min;
  private final long max;
  private final List<String> allowed;

  private TableProperty(String key, Kind kind, String defaultValue, long min, long max, List<String> allowed) {
    this.key = Objects.requireNonNull(key, "key");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.defaultValue = defaultValue;
    this.min = min;
    this.max = max;
    this.allowed = List.copyOf(allowed);
  }

  static TableProperty bool(String key, boolean defaultValue) {
    return new TableProperty(key, Kind.BOOLEAN, Boolean.toString(defaultValue), 0, 0, List.of("true", "false"));
  }

  static TableProperty integer(String key, Integer defaultValue, int min, int max) {
    return new TableProperty(key, Kind.INT, defaultValue == null ? null : defaultValue.toString(), min, max, List.of());
  }

  static TableProperty number(String key, Long defaultValue, long min, long max) {
    return new TableProperty(key, Kind.LONG, defaultValue == null ? null : defaultValue.toString(), min, max,
        List.of());
  }

  /** One of {@code values}, case-insensitive. */
  static TableProperty oneOf(String key, String defaultValue, String... values) {
    return new TableProperty(key, Kind.ENUM, defaultValue, 0, 0, List.of(values));
  }

  static TableProperty metricsMode(String key, String defaultValue) {
    return new TableProperty(key, Kind.METRICS_MODE, defaultValue, 0, 0, List.of());
  }

  /** A positive size in bytes, optionally with a unit ({@code 128m}, {@code 1g}). */
  static TableProperty byteSize(String key) {
    return new TableProperty(key, Kind.BYTE_SIZE, null, 1, Long.MAX_VALUE, List.of());
  }

  /** An absolute path or URI without {@code .} or {@code ..} segments. */
  static TableProperty location(String key) {
    return new TableProperty(key, Kind.LOCATION, null, 0, 0, List.of());
  }

  /** The same property under another key (a per-column key under a prefix). */
  TableProperty withKey(String newKey) {
    return new TableProperty(newKey, kind, defaultValue, min, max, allowed);
  }

  public String key() {
    return key;
  }

  public Kind kind() {
    return kind;
  }

  /** The default as a user would write it; null when the property has no fixed default. */
  public String defaultValue() {
    return defaultValue;
  }

  /** Whether {@code value} is one this property accepts. */
  public boolean accepts(String value) {
    if (value == null) {
      return false;
    }
    if (kind == Kind.LOCATION) {
      return !value.isBlank() && io.floe.format.io.Locations.canonical(value.trim()) != null;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    switch (kind) {
      case BOOLEAN:
      case ENUM:
        return allowed.contains(v);
      case INT:
      case LONG:
        try {
          long parsed = Long.parseLong(v);
          return parsed >= min && parsed <= max;
        } catch (NumberFormatException e) {
          return false;
        }
      case METRICS_MODE:
        return metricsModeAccepts(v);
      case BYTE_SIZE:
        Matcher m = BYTE_SIZE.matcher(v);
        return m.matches() && Long.parseLong(m.group(1)) >= min;
      default:
        throw new IllegalStateException("Unknown kind " + kind);
    }
  }

  private static boolean metricsModeAccepts(String v) {
    if (v.equals("none") || v.equals("counts") || v.equals("full")) {
      return true;
    }
    Matcher truncate = TRUNCATE.matcher(v);
    return truncate.matches() && Integer.parseInt(truncate.group(1)) > 0;
  }

  /** What the property accepts, for error messages: {@code true or false}, {@code one of a, b}, .... */
  public String accepted() {
    switch (kind) {
      case BOOLEAN:
        return "true or false";
      case ENUM:
        return "one of " + String.join(", ", allowed);
      case INT:
      case LONG:
        return "a whole number " + range();
      case METRICS_MODE:
        return "none, counts, truncate(N) with N > 0, or full";
      case BYTE_SIZE:
        return "a positive number of bytes, optionally with a unit (k, m, g, t, p)";
      case LOCATION:
        return "an absolute path or URI (file:/..., hdfs://..., s3a://...) without '.' or '..' segments";
      default:
        throw new IllegalStateException("Unknown kind " + kind);
    }
  }

  private String range() {
    long maxOfKind = kind == Kind.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
    if (max == maxOfKind) {
      return ">= " + min;
    }
    return "from " + min + " to " + max;
  }

  /** The value of this property in {@code properties}, or its default; a bad stored value is an error. */
  String valueIn(Map<String, String> properties) {
    String value = properties.get(key);
    if (value == null) {
      return defaultValue;
    }
    if (!accepts(value)) {
      throw new IllegalArgumentException("Invalid value '" + value + "' for table property " + key + ": expected "
          + accepted());
    }
    return value.trim();
  }

  @Override
  public String toString() {
    return key + " (" + accepted() + (defaultValue == null ? "" : ", default " + defaultValue) + ")";
  }
}
