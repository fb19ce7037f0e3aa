package io.floe.format.maintenance;

import io.floe.format.io.Locations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Matches listed files against the locations the metadata reaches, by canonical form ({@code
 * file:/x}, {@code file:///x} and {@code /x} are one file). A reachable location and a listed file
 * with the same path whose schemes or authorities differ (after mapping the {@code equal_schemes}
 * and {@code equal_authorities} aliases) are a prefix mismatch: the listed file may be the reachable
 * one under another name. A location without a scheme, or without an authority, matches any.
 */
final class OrphanPrefixes {
  /** Scheme aliases that name the same storage unless the caller says otherwise (as Iceberg). */
  static final Map<String, String> DEFAULT_EQUAL_SCHEMES = Map.of("s3a", "s3", "s3n", "s3");

  /** What a listed file is, compared with the reachable locations. */
  enum Match { REACHABLE, UNREACHABLE, PREFIX_MISMATCH }

  /** A canonical location split into scheme (null: any), authority (null or empty: any) and path. */
  record Parts(String scheme, String authority, String path) {
    String prefix() {
      return (scheme == null ? "" : scheme + ":") + (authority == null || authority.isEmpty() ? "" : "//" + authority);
    }
  }

  private final Map<String, String> equalSchemes;
  private final Map<String, String> equalAuthorities;
  private final Map<String, List<Parts>> reachableByPath = new HashMap<>();

  OrphanPrefixes(Map<String, String> equalSchemes, Map<String, String> equalAuthorities) {
    this.equalSchemes = new HashMap<>(DEFAULT_EQUAL_SCHEMES);
    this.equalSchemes.putAll(flatten(equalSchemes, true));
    this.equalAuthorities = flatten(equalAuthorities, false);
  }

  /** {@code "s3a,s3n" -> "s3"} becomes two entries; keys and values trimmed (schemes lower-cased). */
  private static Map<String, String> flatten(Map<String, String> aliases, boolean lowerCase) {
    Map<String, String> flat = new HashMap<>();
    if (aliases == null) {
      return flat;
    }
    for (Map.Entry<String, String> e : aliases.entrySet()) {
      String value = lowerCase ? e.getValue().trim().toLowerCase(Locale.ROOT) : e.getValue().trim();
      for (String key : e.getKey().split(",")) {
        if (!key.isBlank()) {
          flat.put(lowerCase ? key.trim().toLowerCase(Locale.ROOT) : key.trim(), value);
        }
      }
    }
    return flat;
  }

  /**
   * Splits a location into its canonical parts, or returns null when it cannot be trusted (see
   * {@link Locations#canonical}). A location written without a scheme matches any scheme.
   */
  Parts parse(String location) {
    String canonical = Locations.canonical(location);
    if (canonical == null) {
      return null;
    }
    int colon = location.indexOf(':');
    int slash = location.indexOf('/');
    boolean hasScheme = colon > 0 && (slash < 0 || colon < slash);
    String scheme;
    String authority;
    String path;
    if (canonical.startsWith("file:") && !canonical.startsWith("file://")) {
      scheme = "file";
      authority = "";
      path = canonical.substring("file:".length());
    } else {
      int sep = canonical.indexOf("://");
      scheme = canonical.substring(0, sep);
      int pathStart = canonical.indexOf('/', sep + 3);
      authority = canonical.substring(sep + 3, pathStart);
      path = canonical.substring(pathStart);
    }
    if (!hasScheme) {
      return new Parts(null, null, path);
    }
    scheme = equalSchemes.getOrDefault(scheme, scheme);
    authority = equalAuthorities.getOrDefault(authority, authority);
    return new Parts(scheme, authority, path);
  }

  /** Adds a reachable location; false when it cannot be parsed (the caller refuses to go on). */
  boolean addReachable(String location) {
    Parts parts = parse(location);
    if (parts == null) {
      return false;
    }
    reachableByPath.computeIfAbsent(parts.path(), p -> new ArrayList<>(1)).add(parts);
    return true;
  }

  /** Compares a listed file (already parsed) with the reachable locations. */
  Match match(Parts listed) {
    List<Parts> candidates = reachableByPath.get(listed.path());
    if (candidates == null) {
      return Match.UNREACHABLE;
    }
    for (Parts reachable : candidates) {
      if (same(reachable.scheme(), listed.scheme()) && same(reachable.authority(), listed.authority())) {
        return Match.REACHABLE;
      }
    }
    return Match.PREFIX_MISMATCH;
  }

  /** The reachable prefixes ({@code scheme://authority}) with the same path as {@code listed}. */
  List<String> reachablePrefixes(Parts listed) {
    List<String> prefixes = new ArrayList<>();
    for (Parts p : reachableByPath.getOrDefault(listed.path(), List.of())) {
      prefixes.add(p.prefix());
    }
    return prefixes;
  }

  private static boolean same(String a, String b) {
    return a == null || b == null || a.isEmpty() || b.isEmpty() || a.equals(b);
  }
}
