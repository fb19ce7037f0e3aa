package io.floe.format.io;

/**
 * Comparing file locations safely before anything is deleted. {@code file:/x}, {@code file:///x}
 * and {@code /x} name the same local file; repeated slashes collapse; a location with a {@code .}
 * or {@code ..} segment, or one that cannot be parsed, is never inside anything. Locations are
 * compared literally: {@code %2E} is not a dot.
 */
public final class Locations {
  private Locations() {}

  /**
   * The canonical form of a location: {@code file:/path} for local files, {@code
   * scheme://authority/path} otherwise, without a trailing slash; null when it cannot be trusted
   * (unparseable, or a {@code .} / {@code ..} segment).
   */
  public static String canonical(String location) {
    if (location == null || location.isEmpty()) {
      return null;
    }
    String scheme;
    String authority;
    String path;
    int colon = location.indexOf(':');
    int slash = location.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash)) {
      // taken literally, as Hadoop's Path and LocalFileIO take it: no percent-decoding
      scheme = location.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
      String rest = location.substring(colon + 1);
      if (rest.startsWith("//")) {
        int end = rest.indexOf('/', 2);
        authority = end < 0 ? rest.substring(2) : rest.substring(2, end);
        path = end < 0 ? "/" : rest.substring(end);
      } else {
        authority = null;
        path = rest;
      }
    } else {
      scheme = "file";
      authority = null;
      path = location;
    }
    if (!path.startsWith("/")) {
      return null;
    }
    StringBuilder clean = new StringBuilder();
    for (String segment : path.split("/")) {
      if (segment.isEmpty()) {
        continue;
      }
      if (segment.equals(".") || segment.equals("..")) {
        return null;
      }
      clean.append('/').append(segment);
    }
    String normalizedPath = clean.length() == 0 ? "/" : clean.toString();
    if (scheme.equals("file")) {
      if (authority != null && !authority.isEmpty() && !authority.equals("localhost")) {
        return null;
      }
      return "file:" + normalizedPath;
    }
    return scheme + "://" + (authority == null ? "" : authority) + normalizedPath;
  }

  /** True when {@code location} lies strictly below {@code root} (same scheme and authority). */
  public static boolean isInside(String root, String location) {
    String r = canonical(root);
    String l = canonical(location);
    if (r == null || l == null) {
      return false;
    }
    String prefix = r.endsWith("/") ? r : r + "/";
    return l.startsWith(prefix) && l.length() > prefix.length();
  }

  /**
   * Checks a location about to be deleted: it must lie below {@code root}. Otherwise throws
   * IllegalStateException naming the file, what it is, and the root, and nothing is deleted.
   */
  public static void checkInside(String root, String location, String what) {
    if (!isInside(root, location)) {
      throw new IllegalStateException("Refusing to delete " + location + " (" + what
          + "): it is not inside the table location " + root
          + "; the table's metadata may be corrupt or point at another table's files");
    }
  }
}
