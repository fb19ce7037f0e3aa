package io.floe.format.catalog;

import io.floe.format.io.Locations;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The paths of a table whose folder moves from {@code oldRoot} to {@code newRoot}: a location
 * below the old root maps to the same relative location below the new root, and any other
 * location is kept. A local old root is recognised however a writer spelled it ({@code file:/x},
 * {@code file:///x}, {@code file://localhost/x}, {@code /x}; Iceberg's Hadoop catalog writes
 * {@code file:/x}); the new root is always written as the catalog spells it. The map is a pure
 * function of the string, so every reference to one file (its manifest entry, a delete file's
 * {@code file_path}, a deletion vector's {@code referenced-data-file}) moves to the same string.
 */
final class RootMove {
  private final List<String> oldPrefixes;
  private final String oldRoot;
  private final String newRoot;

  RootMove(String oldRoot, String newRoot) {
    this.oldRoot = oldRoot;
    Set<String> prefixes = new LinkedHashSet<>();
    prefixes.add(oldRoot);
    String canonical = Locations.canonical(oldRoot);
    if (canonical != null && canonical.startsWith("file:/")) {
      String path = canonical.substring("file:".length());
      prefixes.add("file:" + path);
      prefixes.add("file://" + path);
      prefixes.add("file://localhost" + path);
      prefixes.add(path);
    } else if (canonical != null) {
      prefixes.add(canonical);
    }
    this.oldPrefixes = new ArrayList<>(prefixes);
    this.newRoot = newRoot;
  }

  String oldRoot() {
    return oldRoot;
  }

  String newRoot() {
    return newRoot;
  }

  /** The location after the move; null stays null. */
  String apply(String location) {
    if (location == null) {
      return null;
    }
    for (String prefix : oldPrefixes) {
      if (location.equals(prefix)) {
        return newRoot;
      }
      if (location.startsWith(prefix) && location.charAt(prefix.length()) == '/') {
        return newRoot + location.substring(prefix.length());
      }
    }
    return location;
  }

  /** Whether {@code location} is below (or is) the old root. */
  boolean moves(String location) {
    return location != null && !location.equals(apply(location));
  }

  /**
   * Whether a string column whose values all lie between {@code lower} and {@code upper} (UTF-8
   * order; null when unknown) may hold a location below the old root: such locations are exactly
   * the strings from {@code prefix + "/"} up to, not including, {@code prefix + "0"}.
   */
  boolean mayHoldMoved(String lower, String upper) {
    if (lower == null || upper == null) {
      return true;
    }
    for (String prefix : oldPrefixes) {
      if (compare(lower, prefix + "0") < 0 && compare(upper, prefix + "/") >= 0) {
        return true;
      }
    }
    return false;
  }

  private static int compare(String a, String b) {
    byte[] x = a.getBytes(StandardCharsets.UTF_8);
    byte[] y = b.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = Integer.compare(x[i] & 0xFF, y[i] & 0xFF);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }
}
