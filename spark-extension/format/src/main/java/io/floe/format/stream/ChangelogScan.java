package io.floe.format.stream;

import io.floe.format.SnapshotErrors;
import io.floe.format.StreamingErrors;
import io.floe.format.commit.SnapshotListing;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.metadata.DataOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans a table's change feed between two snapshots (start exclusive, end inclusive), snapshot by
 * snapshot in commit order, as the input of {@code create_changelog_view} (docs/streaming.md):
 * added data files are inserts; removed data files are deletes of their live rows; new position
 * deletes, deletion vectors and equality deletes are deletes of the rows they newly delete;
 * {@code replace} snapshots (compaction) produce nothing. Not thread-safe: it keeps the file plans
 * of the snapshots it compared, as each snapshot is compared with its parent.
 */
public final class ChangelogScan {
  private static final String ACTION = "read the change feed of";

  private final String table;
  private final FileIO io;
  private final TableMetadata metadata;
  private final Map<Long, Map<String, FileScanTask>> plans = new HashMap<>();

  private ChangelogScan(String table, FileIO io, TableMetadata metadata) {
    this.table = table;
    this.io = io;
    this.metadata = metadata;
  }

  public static ChangelogScan of(String table, FileIO io, TableMetadata metadata) {
    return new ChangelogScan(table, io, metadata);
  }

  /**
   * The snapshots after {@code startExclusive} (null: from the oldest ancestor that still exists) up
   * to {@code endInclusive} (null: the current snapshot), oldest first.
   */
  public List<Snapshot> snapshots(Long startExclusive, Long endInclusive) {
    Snapshot end = endInclusive == null ? metadata.currentSnapshot() : metadata.snapshot(endInclusive);
    if (end == null && endInclusive != null) {
      throw SnapshotErrors.snapshotNotFound(table, endInclusive.toString(), "Cannot " + ACTION + " table " + table
          + ": end snapshot " + endInclusive + " does not exist; " + SnapshotListing.describe(metadata));
    }
    List<Snapshot> range = new ArrayList<>();
    for (Snapshot s = end; s != null; s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
      if (startExclusive != null && s.snapshotId() == startExclusive) {
        return reversed(range);
      }
      range.add(s);
      if (startExclusive != null && startExclusive.equals(s.parentId())) {
        return reversed(range); // the start itself may have expired: its child is what the range needs
      }
    }
    if (startExclusive == null) {
      return reversed(range);
    }
    if (metadata.snapshot(startExclusive) == null) {
      throw StreamingErrors.snapshotExpired(table, startExclusive, ACTION, SnapshotListing.describe(metadata));
    }
    if (end != null && isAncestor(end.snapshotId(), metadata.snapshot(startExclusive))) {
      throw StreamingErrors.rangeReversed(table, startExclusive, end.snapshotId());
    }
    throw StreamingErrors.notAnAncestor(table, startExclusive, end == null ? null : end.snapshotId(), ACTION);
  }

  /** Whether {@code ancestorId} is {@code s} or one of its ancestors. */
  private boolean isAncestor(long ancestorId, Snapshot s) {
    for (Snapshot a = s; a != null; a = a.parentId() == null ? null : metadata.snapshot(a.parentId())) {
      if (a.snapshotId() == ancestorId) {
        return true;
      }
    }
    return false;
  }

  /**
   * The change tasks of the range, in commit order; within a snapshot: inserts, then deletes.
   * {@code replace} snapshots change no rows and, as in Iceberg, take no change ordinal.
   */
  public List<ChangelogTask> planTasks(Long startExclusive, Long endInclusive) {
    List<ChangelogTask> tasks = new ArrayList<>();
    int ordinal = 0;
    for (Snapshot snapshot : snapshots(startExclusive, endInclusive)) {
      if (!snapshot.operation().equals(DataOperations.REPLACE)) {
        tasks.addAll(changes(ordinal++, snapshot));
      }
    }
    return tasks;
  }

  private List<ChangelogTask> changes(int ordinal, Snapshot snapshot) {
    List<ChangelogTask> out = new ArrayList<>();
    String op = snapshot.operation();
    long id = snapshot.snapshotId();
    List<ManifestEntry<DataFile>> added = SnapshotFiles.addedData(io, metadata, snapshot);
    if (op.equals(DataOperations.APPEND)) {
      for (ManifestEntry<DataFile> e : added) {
        out.add(new ChangelogTask.AddedRows(ordinal, id, e.file(), metadata.spec(e.file().specId()), List.of()));
      }
      return out;
    }
    if (snapshot.parentId() != null && metadata.snapshot(snapshot.parentId()) == null) {
      // what the removed files and new deletes changed depends on the deletes before: they are gone
      throw StreamingErrors.snapshotExpired(table, snapshot.parentId(), ACTION, SnapshotListing.describe(metadata));
    }
    List<ManifestEntry<DataFile>> removed = SnapshotFiles.removedData(io, metadata, snapshot);
    List<ManifestEntry<DeleteFile>> newDeletes = SnapshotFiles.addedDeletes(io, metadata, snapshot);
    Map<String, FileScanTask> now = plan(snapshot);
    Map<String, FileScanTask> before = snapshot.parentId() == null ? Map.of()
        : plan(metadata.snapshot(snapshot.parentId()));
    Set<String> addedPaths = new HashSet<>();
    for (ManifestEntry<DataFile> e : added) {
      addedPaths.add(e.file().path());
      FileScanTask task = now.get(e.file().path());
      out.add(new ChangelogTask.AddedRows(ordinal, id, e.file(), metadata.spec(e.file().specId()),
          task == null ? List.of() : task.deletes()));
    }
    for (ManifestEntry<DataFile> e : removed) {
      out.add(new ChangelogTask.DeletedDataFile(ordinal, id, e.file(), metadata.spec(e.file().specId()),
          existing(before, e.file().path())));
    }
    if (!newDeletes.isEmpty()) {
      Set<DeleteKey> newKeys = new HashSet<>();
      newDeletes.forEach(e -> newKeys.add(DeleteKey.of(e.file())));
      for (FileScanTask task : now.values()) {
        if (addedPaths.contains(task.file().path())) {
          continue;
        }
        List<DeleteFile> addedHere = new ArrayList<>();
        for (DeleteFile d : task.deletes()) {
          if (newKeys.contains(DeleteKey.of(d))) {
            addedHere.add(d);
          }
        }
        if (!addedHere.isEmpty()) {
          out.add(new ChangelogTask.DeletedRows(ordinal, id, task.file(), task.spec(), addedHere,
              existing(before, task.file().path())));
        }
      }
    }
    return out;
  }

  private static List<DeleteFile> existing(Map<String, FileScanTask> before, String path) {
    FileScanTask task = before.get(path);
    return task == null ? List.of() : task.deletes();
  }

  /** A delete file by location and, for deletion vectors sharing one Puffin file, blob offset. */
  private record DeleteKey(String path, Long contentOffset) {
    static DeleteKey of(DeleteFile f) {
      return new DeleteKey(f.path(), f.contentOffset());
    }
  }

  /** The live data files of {@code snapshot} with the deletes that apply to each, by path. */
  private Map<String, FileScanTask> plan(Snapshot snapshot) {
    return plans.computeIfAbsent(snapshot.snapshotId(), sid -> {
      Map<String, FileScanTask> byPath = new LinkedHashMap<>(); // plan order, so task order is stable
      for (FileScanTask t : TableScan.of(io, metadata).useSnapshot(snapshot).planFiles().tasks()) {
        byPath.put(t.file().path(), t);
      }
      return byPath;
    });
  }

  private static List<Snapshot> reversed(List<Snapshot> newestFirst) {
    List<Snapshot> out = new ArrayList<>(newestFirst);
    Collections.reverse(out);
    return out;
  }
}
