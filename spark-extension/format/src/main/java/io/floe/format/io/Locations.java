package io.floe.format.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;

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
   * Checks a location about to be deleted: it must lie below {@code root}, by name and, for local
   * files, once symbolic links are resolved (a link inside the table to a folder outside it must not
   * let a delete reach that folder). Otherwise throws IllegalStateException naming the file, what it
   * is, and the root, and nothing is deleted.
   */
  public static void checkInside(String root, String location, String what) {
    if (!isInside(root, location)) {
      throw new IllegalStateException("Refusing to delete " + location + " (" + what
          + "): it is not inside the table location " + root
          + "; the table's metadata may be corrupt or point at another table's files");
    }
    Path outside = linkedOutside(canonical(root), canonical(location));
    if (outside != null) {
      throw new IllegalStateException("Refusing to delete " + location + " (" + what
          + "): it lies, through a symbolic link, in " + outside + ", outside the table location " + root
          + "; remove the link, or move the files it points at into the table location");
    }
  }

  /**
   * The real folder of local file {@code location} when a symbolic link takes it outside the real
   * folder of {@code root} (which {@link #checkInside} would then refuse to delete from); null when
   * it stays inside, is not local, or its folder does not exist.
   */
  public static Path realFolderOutside(String root, String location) {
    String r = canonical(root);
    String l = canonical(location);
    return r == null || l == null ? null : linkedOutside(r, l);
  }

  /**
   * The real folder of local file {@code location} when a symbolic link takes it outside the real
   * folder of {@code root}; null when it stays inside, is not local, or its folder does not exist
   * (then there is nothing to delete).
   */
  private static Path linkedOutside(String root, String location) {
    if (!root.startsWith("file:/") || !location.startsWith("file:/")) {
      return null;
    }
    try {
      Path realRoot = Paths.get(root.substring("file:".length())).toRealPath();
      Path parent = Paths.get(location.substring("file:".length())).getParent();
      Path realParent = parent == null ? null : parent.toRealPath();
      return realParent == null || realParent.startsWith(realRoot) ? null : realParent;
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot resolve " + location + " before deleting it; nothing was deleted", e);
    }
  }
}
