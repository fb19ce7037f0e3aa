package io.floe.format.index;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The data files a segment covers, in ordinal order: the body of the {@code floe-index-files-v1}
 * blob. Pages name files by ordinal (their position here); a file is covered when it is listed,
 * whatever values it holds (an empty or all-null file is covered too).
 * <pre>
 *   int32 LE   n = number of files
 *   n times:   varint length, UTF-8 bytes of the file's full path
 * </pre>
 */
public final class CoveredFiles {
  private final List<String> paths;
  private volatile Map<String, Integer> ordinals; // built on first use; readers may share the instance

  CoveredFiles(List<String> paths) {
    this.paths = List.copyOf(paths);
  }

  public List<String> paths() {
    return paths;
  }

  public int size() {
    return paths.size();
  }

  public String path(int ordinal) {
    return paths.get(ordinal);
  }

  /** The ordinal of {@code path}, or -1 when the segment does not cover it. */
  public int ordinal(String path) {
    Map<String, Integer> map = ordinals;
    if (map == null) {
      map = new HashMap<>(paths.size() * 2);
      for (int i = 0; i < paths.size(); i++) {
        map.put(paths.get(i), i);
      }
      ordinals = map;
    }
    return map.getOrDefault(path, -1);
  }

  public boolean covers(String path) {
    return ordinal(path) >= 0;
  }

  byte[] toBytes() {
    BlobBytes.Out out = new BlobBytes.Out().int32(paths.size());
    for (String path : paths) {
      out.lengthPrefixed(path.getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  static CoveredFiles fromBytes(byte[] bytes) {
    BlobBytes.In in = new BlobBytes.In(bytes, IndexBlobTypes.FILES);
    int n = in.count("file count", 1);
    String[] paths = new String[n];
    for (int i = 0; i < n; i++) {
      paths[i] = in.utf8("path of file " + i);
    }
    in.end();
    CoveredFiles files = new CoveredFiles(List.of(paths));
    files.ordinal("");
    if (files.ordinals.size() != n) {
      throw in.malformed("paths", n + " distinct paths", files.ordinals.size() + " distinct");
    }
    return files;
  }
}
