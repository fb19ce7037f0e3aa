package io.floe.spark.util;

import io.floe.format.index.FileValues;
import io.floe.format.manifest.DataFile;
import io.floe.format.scan.FileScanTask;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The file sets of running rewrites (compaction), on the driver: a rewrite registers the scan
 * tasks of one file group (data files with the deletes that apply to them), reads exactly those
 * through the read option {@link #OPTION}, and writes with the same write option, which stages the
 * written files here instead of committing them, with the values of indexed columns the writers
 * gathered for them. The rewrite then commits them itself and {@link #remove removes} the set.
 */
public final class FileSetRegistry {
  /** Read and write option naming a registered file set. */
  public static final String OPTION = "floe.rewrite.file-set-id";

  private static final Map<String, FileSet> SETS = new ConcurrentHashMap<>();

  private FileSetRegistry() {}

  /** One registered group: the table it belongs to, the tasks to read, the files written so far and their values. */
  private record FileSet(String tableName, List<FileScanTask> tasks, List<DataFile> written,
      Map<Integer, List<FileValues>> indexValues) {
  }

  /** Registers the tasks of a file group of {@code tableName}; returns the id for {@link #OPTION}. */
  public static String register(String tableName, List<FileScanTask> tasks) {
    String id = UUID.randomUUID().toString();
    SETS.put(id, new FileSet(tableName, List.copyOf(tasks), new ArrayList<>(), new HashMap<>()));
    return id;
  }

  /** The tasks of file set {@code id}, which must belong to {@code tableName}. */
  public static List<FileScanTask> tasks(String id, String tableName) {
    return get(id, tableName).tasks();
  }

  /**
   * Records files written for file set {@code id} (called once per successful write job), with
   * {@code indexValues}, per indexed field id the values of those files that have them.
   */
  public static void stage(String id, String tableName, List<DataFile> files,
      Map<Integer, List<FileValues>> indexValues) {
    FileSet set = get(id, tableName);
    synchronized (set.written()) {
      set.written().addAll(files);
      indexValues.forEach((fieldId, values) ->
          set.indexValues().computeIfAbsent(fieldId, k -> new ArrayList<>()).addAll(values));
    }
  }

  /** The files written for file set {@code id} so far. */
  public static List<DataFile> written(String id) {
    FileSet set = SETS.get(id);
    if (set == null) {
      return List.of();
    }
    synchronized (set.written()) {
      return List.copyOf(set.written());
    }
  }

  /** Per indexed field id, the values of the files written for file set {@code id} so far. */
  public static Map<Integer, List<FileValues>> indexValues(String id) {
    FileSet set = SETS.get(id);
    if (set == null) {
      return Map.of();
    }
    synchronized (set.written()) {
      Map<Integer, List<FileValues>> out = new HashMap<>();
      set.indexValues().forEach((fieldId, values) -> out.put(fieldId, List.copyOf(values)));
      return out;
    }
  }

  public static void remove(String id) {
    SETS.remove(id);
  }

  private static FileSet get(String id, String tableName) {
    FileSet set = SETS.get(id);
    if (set == null) {
      throw new IllegalArgumentException("Cannot use option " + OPTION + "=" + id + " on table " + tableName
          + ": no running rewrite registered that file set (the option is internal to rewrite_data_files)");
    }
    if (!set.tableName().equals(tableName)) {
      throw new IllegalArgumentException("Cannot use file set " + id + " of table " + set.tableName()
          + " with table " + tableName);
    }
    return set;
  }
}
