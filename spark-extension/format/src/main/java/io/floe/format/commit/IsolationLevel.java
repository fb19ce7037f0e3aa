package io.floe.format.commit;

import java.util.Locale;
import java.util.Map;

/**
 * How strictly a row-level operation is validated against the commits that landed after the
 * snapshot it read: {@code serializable} also fails when a concurrent commit added data files that
 * may hold rows matching the operation's condition; {@code snapshot} only fails when a concurrent
 * commit deleted rows or files the operation rewrites.
 */
public enum IsolationLevel {
  SERIALIZABLE, SNAPSHOT;

  /** The level named by table property {@code key} (default serializable); an unknown name is an error. */
  public static IsolationLevel fromProperties(Map<String, String> properties, String key, String tableName) {
    String value = properties.get(key);
    if (value == null) {
      return SERIALIZABLE;
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "serializable":
        return SERIALIZABLE;
      case "snapshot":
        return SNAPSHOT;
      default:
        throw new IllegalArgumentException("Invalid table property " + key + " of table " + tableName + ": '" + value
            + "' (valid values: serializable, snapshot)");
    }
  }
}
