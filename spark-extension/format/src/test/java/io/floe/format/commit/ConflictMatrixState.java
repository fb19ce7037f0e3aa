package io.floe.format.commit;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A table as a reader sees it (live data files with their rows and deletes, columns, indexes,
 * snapshot count): read from a table by {@link ConflictMatrixTable#state}, or built as the
 * expected state by applying operations' effects to a copy ({@link ConflictMatrixOps}).
 */
final class ConflictMatrixState {
  final Map<String, Long> records = new TreeMap<>();
  final Map<String, String> regions = new TreeMap<>();
  final Map<String, Map<String, Long>> deletes = new TreeMap<>();
  final Set<String> columns = new TreeSet<>();
  final Set<String> indexes = new TreeSet<>();
  /** Compared only when an expiry ran last (it leaves one snapshot); null: not compared. */
  Integer snapshots;

  void addData(String path, long rows, String region) {
    records.put(path, rows);
    regions.put(path, region == null ? "" : region);
    deletes.computeIfAbsent(path, p -> new TreeMap<>());
  }

  void addDelete(String dataPath, String deletePath, long rows) {
    deletes.computeIfAbsent(dataPath, p -> new TreeMap<>()).put(deletePath, rows);
  }

  void removeData(String path) {
    records.remove(path);
    regions.remove(path);
    deletes.remove(path);
  }

  /** Removes the files of partition {@code region}, or every file when it is null (unpartitioned). */
  void removePartition(String region) {
    Set<String> paths = new TreeSet<>(records.keySet());
    paths.stream().filter(p -> region == null || region.equals(regions.get(p))).forEach(this::removeData);
  }

  /** Rows a reader gets: data rows less deleted ones. */
  long liveRows() {
    long rows = records.values().stream().mapToLong(Long::longValue).sum();
    for (Map<String, Long> d : deletes.values()) {
      rows -= d.values().stream().mapToLong(Long::longValue).sum();
    }
    return rows;
  }

  ConflictMatrixState copy() {
    ConflictMatrixState c = new ConflictMatrixState();
    c.records.putAll(records);
    c.regions.putAll(regions);
    deletes.forEach((k, v) -> c.deletes.put(k, new TreeMap<>(v)));
    c.columns.addAll(columns);
    c.indexes.addAll(indexes);
    c.snapshots = snapshots;
    return c;
  }

  /** The differences from {@code actual}, or an empty string when it matches. */
  String diff(ConflictMatrixState actual) {
    StringBuilder out = new StringBuilder();
    if (!records.equals(actual.records) || !deletes.equals(actual.deletes)) {
      out.append("live files expected ").append(describe()).append(" but were ").append(actual.describe()).append("; ");
    }
    if (liveRows() != actual.liveRows()) {
      out.append("live rows expected ").append(liveRows()).append(" but were ").append(actual.liveRows()).append("; ");
    }
    if (!columns.equals(actual.columns)) {
      out.append("columns expected ").append(columns).append(" but were ").append(actual.columns).append("; ");
    }
    if (!indexes.equals(actual.indexes)) {
      out.append("indexes expected ").append(indexes).append(" but were ").append(actual.indexes).append("; ");
    }
    if (snapshots != null && !snapshots.equals(actual.snapshots)) {
      out.append("snapshots expected ").append(snapshots).append(" but were ").append(actual.snapshots).append("; ");
    }
    return out.toString();
  }

  private String describe() {
    StringBuilder out = new StringBuilder("{");
    records.forEach((path, rows) -> out.append(shortName(path)).append('=').append(rows)
        .append(deletes.getOrDefault(path, Map.of()).isEmpty() ? "" : "-" + deletes.get(path).values()).append(' '));
    return out.append('}').toString();
  }

  private static String shortName(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return name.length() > 8 ? name.substring(0, 8) : name;
  }
}
