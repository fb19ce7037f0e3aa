package io.floe.format.io;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * In-flight markers: a write (or a commit) creates {@code <dir>/_floe-writing-<operation id>}
 * before it writes its first file and deletes it only after its snapshot is published or it gave
 * up. Every file the operation writes carries the operation id (a UUID) in its name: data files
 * {@code 00000-7-<id>-00001.parquet}, delete files {@code delete-<id>-00001.parquet}, deletion
 * vectors {@code dv-<id>-00001.puffin}, manifests {@code <id>-m0.avro}, manifest lists
 * {@code snap-<snapshot id>-<attempt>-<id>.avro}. While the marker exists, orphan removal keeps
 * those files. The leading underscore hides a marker from readers and listings.
 */
public final class WriteMarkers {
  /** The file name prefix of a marker. */
  public static final String PREFIX = "_floe-writing-";
  private static final Pattern UUID = Pattern.compile(
      "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private WriteMarkers() {}

  /** The marker of operation {@code operationId} in {@code directory}. */
  public static String location(String directory, String operationId) {
    return directory + "/" + PREFIX + operationId;
  }

  /** The operation id a marker's file name names, or null when {@code fileName} is not a marker. */
  public static String markerOperation(String fileName) {
    if (!fileName.startsWith(PREFIX)) {
      return null;
    }
    String id = fileName.substring(PREFIX.length());
    return UUID.matcher(id).matches() ? id.toLowerCase(java.util.Locale.ROOT) : null;
  }

  /** The operation ids (UUIDs) a file name carries, lower case; empty for a file no operation named. */
  public static List<String> operationIds(String fileName) {
    List<String> ids = new ArrayList<>(1);
    Matcher m = UUID.matcher(fileName);
    while (m.find()) {
      ids.add(m.group().toLowerCase(java.util.Locale.ROOT));
    }
    return ids;
  }

  /** The last path segment of a location. */
  public static String fileName(String location) {
    int slash = location.lastIndexOf('/');
    return slash < 0 ? location : location.substring(slash + 1);
  }
}
