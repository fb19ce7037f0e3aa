package io.floe.format.stream;

import io.floe.format.StreamingErrors;
import io.floe.format.commit.SnapshotListing;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.metadata.DataOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotLogEntry;
import io.floe.format.metadata.TableMetadata;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans a streaming read of a table's appended data files, in commit order along the current
 * snapshot's ancestry (docs/streaming.md). {@code append} snapshots give their added files;
 * {@code replace} snapshots (compaction) are skipped; {@code delete} and {@code overwrite} snapshots
 * are skipped when their skip option is set and are otherwise an error naming the snapshot and the
 * option. A start offset whose snapshot has expired is an error, never a silent skip.
 *
 * <p>Spark's micro-batch stream maps onto it as: {@code latestOffset(start, limit)} is
 * {@code nextBatch(start, ...).end()}, {@code planInputPartitions(start, end)} is
 * {@code planFiles(start, end)}; {@code Trigger.AvailableNow} caps every batch at {@link #latestOffset}.
 * Not thread-safe: it remembers the files of the snapshots it read, for the batch being planned.
 */
public final class IncrementalAppendScan {
  private static final String ACTION = "stream from";

  private final String table;
  private final FileIO io;
  private final TableMetadata metadata;
  private final StreamingReadOptions options;
  private final Map<Long, List<ManifestEntry<DataFile>>> filesBySnapshot;

  private IncrementalAppendScan(String table, FileIO io, TableMetadata metadata, StreamingReadOptions options,
      Map<Long, List<ManifestEntry<DataFile>>> filesBySnapshot) {
    this.table = table;
    this.io = io;
    this.metadata = metadata;
    this.options = options;
    this.filesBySnapshot = filesBySnapshot;
  }

  /** A scan of {@code metadata} (the table as last refreshed); {@code table} names it in errors. */
  public static IncrementalAppendScan of(String table, FileIO io, TableMetadata metadata,
      StreamingReadOptions options) {
    return new IncrementalAppendScan(table, io, metadata, options, new HashMap<>());
  }

  /**
   * This scan over {@code newer} (the table refreshed), keeping the added files it already read of
   * snapshots that still exist: a running stream reads each snapshot's manifests once, not once per
   * refresh. Call {@link #forgetBefore} as batches commit to keep that memory to the unread backlog.
   */
  public IncrementalAppendScan refreshed(TableMetadata newer) {
    Map<Long, List<ManifestEntry<DataFile>>> kept = new HashMap<>();
    filesBySnapshot.forEach((id, files) -> {
      if (newer.snapshot(id) != null) {
        kept.put(id, files);
      }
    });
    return new IncrementalAppendScan(table, io, newer, options, kept);
  }

  /** Drops the remembered files of snapshots older than {@code committed}'s: the stream never reads them again. */
  public void forgetBefore(StreamingOffset committed) {
    if (committed.isStart()) {
      return;
    }
    List<Snapshot> unread = ancestryOldestFirst(committed.snapshotId());
    if (unread.isEmpty() || unread.get(0).snapshotId() != committed.snapshotId()) {
      return; // not on the current ancestry: keep everything, the next batch reports the problem
    }
    filesBySnapshot.keySet().retainAll(unread.stream().map(Snapshot::snapshotId).toList());
  }

  /** The number of snapshots whose files this scan remembers (for tests). */
  int rememberedSnapshots() {
    return filesBySnapshot.size();
  }

  /** The next batch after {@code start} within the options' limits. */
  public MicroBatch nextBatch(StreamingOffset start) {
    return nextBatch(start, options.maxFilesPerBatch(), options.maxRowsPerBatch(), null);
  }

  /**
   * The next batch after {@code start} of at most {@code maxFiles} files and {@code maxRows} rows (a
   * single larger file is taken alone), not past {@code cap} when it is non-null.
   */
  public MicroBatch nextBatch(StreamingOffset start, int maxFiles, long maxRows, StreamingOffset cap) {
    if (maxFiles <= 0 || maxRows <= 0) {
      throw new IllegalArgumentException("Invalid micro-batch limits: " + maxFiles + " files, " + maxRows + " rows");
    }
    return walk(start, maxFiles, maxRows, cap);
  }

  /** The files from {@code start} (inclusive) to {@code end} (exclusive), as an earlier batch planned them. */
  public List<AppendedFile> planFiles(StreamingOffset start, StreamingOffset end) {
    if (!end.equals(start) && !end.isStart() && metadata.snapshot(end.snapshotId()) == null) {
      // the batch's last snapshot expired after the batch was planned: its files can no longer be listed
      throw StreamingErrors.snapshotExpired(table, end.snapshotId(), ACTION, SnapshotListing.describe(metadata));
    }
    return walk(start, Integer.MAX_VALUE, Long.MAX_VALUE, end).files();
  }

  /** The offset after everything committed so far (Trigger.AvailableNow's end, and the reported latest offset). */
  public StreamingOffset latestOffset(StreamingOffset start) {
    return walk(start, Integer.MAX_VALUE, Long.MAX_VALUE, null).end();
  }

  /** Where reading begins: a snapshot of {@code chain}, a position in it, and whether it scans all files. */
  private record Begin(int index, long position, boolean scanAllFiles) {}

  private MicroBatch walk(StreamingOffset start, int maxFiles, long maxRows, StreamingOffset cap) {
    List<Snapshot> chain = ancestryOldestFirst(start.isStart() ? null : start.snapshotId());
    Begin begin = begin(start, chain);
    if (begin == null || (cap != null && !capAhead(cap, chain, begin.index()))) {
      return new MicroBatch(List.of(), start);
    }
    List<AppendedFile> taken = new ArrayList<>();
    long rows = 0;
    StreamingOffset end = start;
    for (int i = begin.index(); i < chain.size(); i++) {
      Snapshot snapshot = chain.get(i);
      boolean scanAll = i == begin.index() && begin.scanAllFiles();
      long position = i == begin.index() ? begin.position() : 0;
      if (cap != null && reached(cap, snapshot.snapshotId(), position)) {
        return new MicroBatch(taken, end);
      }
      if (!scanAll && !readable(snapshot)) {
        String refusal = refusal(snapshot);
        if (refusal != null && !taken.isEmpty()) {
          // deliver what came before; the next batch starts at this snapshot and reports the error
          return new MicroBatch(taken, new StreamingOffset(snapshot.snapshotId(), 0, false, false));
        } else if (refusal != null) {
          throw StreamingErrors.cannotProcessSnapshot(table, snapshot.snapshotId(), snapshot.operation(), refusal);
        }
        end = new StreamingOffset(snapshot.snapshotId(), 0, false, true);
        if (cap != null && cap.snapshotId() == snapshot.snapshotId()) {
          return new MicroBatch(taken, end);
        }
        continue;
      }
      List<ManifestEntry<DataFile>> files = files(snapshot, scanAll);
      for (long p = position; p < files.size(); p++) {
        ManifestEntry<DataFile> e = files.get((int) p);
        long fileRows = e.file().recordCount();
        boolean full = taken.size() >= maxFiles || (!taken.isEmpty() && rows + fileRows > maxRows);
        if (full || (cap != null && reached(cap, snapshot.snapshotId(), p))) {
          return new MicroBatch(taken, new StreamingOffset(snapshot.snapshotId(), p, scanAll, false));
        }
        taken.add(new AppendedFile(snapshot.snapshotId(), p, e.file(), metadata.spec(e.file().specId()),
            e.dataSequenceNumber()));
        rows += fileRows;
      }
      end = new StreamingOffset(snapshot.snapshotId(), Math.max(position, files.size()), scanAll, true);
      if (cap != null && cap.snapshotId() == snapshot.snapshotId()) {
        return new MicroBatch(taken, end);
      }
    }
    return new MicroBatch(taken, end);
  }

  /** Whether {@code cap} lies in {@code chain} at or after index {@code from}: else nothing is left below it. */
  private static boolean capAhead(StreamingOffset cap, List<Snapshot> chain, int from) {
    for (int i = from; i < chain.size(); i++) {
      if (chain.get(i).snapshotId() == cap.snapshotId()) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code cap} is at (or before) position {@code position} of snapshot {@code snapshotId}. */
  private static boolean reached(StreamingOffset cap, long snapshotId, long position) {
    return cap.snapshotId() == snapshotId && !cap.complete() && position >= cap.position();
  }

  private Begin begin(StreamingOffset start, List<Snapshot> chain) {
    if (start.isStart()) {
      if (chain.isEmpty()) {
        return null;
      }
      if (options.fromTimestampMillis() == null) {
        // history before the oldest retained snapshot has expired: read the table's contents at it in full
        return new Begin(0, 0, chain.get(0).parentId() != null);
      }
      long from = options.fromTimestampMillis();
      for (int i = 0; i < chain.size(); i++) {
        if (chain.get(i).timestampMillis() >= from) {
          if (i == 0 && expiredParentMayBeAfter(chain.get(0), from)) {
            throw StreamingErrors.historyExpiredAfter(table, Instant.ofEpochMilli(from).toString(),
                chain.get(0).snapshotId(), Instant.ofEpochMilli(chain.get(0).timestampMillis()).toString());
          }
          return new Begin(i, 0, false);
        }
      }
      return null;
    }
    Snapshot oldest = chain.isEmpty() ? null : chain.get(0);
    if (oldest != null && oldest.snapshotId() == start.snapshotId()) {
      return start.complete() ? new Begin(1, 0, false) : new Begin(0, start.position(), start.scanAllFiles());
    }
    if (oldest != null && start.complete() && Long.valueOf(start.snapshotId()).equals(oldest.parentId())) {
      return new Begin(0, 0, false); // the start snapshot was read in full, then expired
    }
    if (metadata.snapshot(start.snapshotId()) == null) {
      throw StreamingErrors.snapshotExpired(table, start.snapshotId(), ACTION, SnapshotListing.describe(metadata));
    }
    throw StreamingErrors.notAnAncestor(table, start.snapshotId(),
        oldest == null ? null : metadata.currentSnapshot().snapshotId(), ACTION);
  }

  /**
   * Whether {@code oldest}'s parent has expired and may have been committed at or after {@code from}:
   * the snapshot log, which keeps times of snapshots that expired, does not show it was earlier.
   */
  private boolean expiredParentMayBeAfter(Snapshot oldest, long from) {
    if (oldest.parentId() == null) {
      return false;
    }
    for (SnapshotLogEntry e : metadata.snapshotLog()) {
      if (e.snapshotId() == oldest.parentId() && e.timestampMillis() < from) {
        return false;
      }
    }
    return true;
  }

  /**
   * The current snapshot's ancestors, oldest first, back to {@code stopAt} (included) or to the
   * oldest ancestor that still exists.
   */
  private List<Snapshot> ancestryOldestFirst(Long stopAt) {
    List<Snapshot> chain = new ArrayList<>();
    Snapshot s = metadata.currentSnapshot();
    while (s != null) {
      chain.add(s);
      if (stopAt != null && s.snapshotId() == stopAt) {
        break;
      }
      s = s.parentId() == null ? null : metadata.snapshot(s.parentId());
    }
    Collections.reverse(chain);
    return chain;
  }

  private static boolean readable(Snapshot snapshot) {
    return snapshot.operation().equals(DataOperations.APPEND);
  }

  /** The option that would skip {@code snapshot} when the stream must refuse it, else null (it is skipped). */
  private String refusal(Snapshot snapshot) {
    String op = snapshot.operation();
    if (op.equals(DataOperations.DELETE) && !options.skipDeleteSnapshots()) {
      return StreamingReadOptions.SKIP_DELETE_SNAPSHOTS;
    }
    if (op.equals(DataOperations.OVERWRITE) && !options.skipOverwriteSnapshots()) {
      return StreamingReadOptions.SKIP_OVERWRITE_SNAPSHOTS;
    }
    return null; // replace (compaction, manifest rewrite) adds no rows
  }

  private List<ManifestEntry<DataFile>> files(Snapshot snapshot, boolean scanAll) {
    if (scanAll) {
      return SnapshotFiles.liveData(io, metadata, snapshot);
    }
    return filesBySnapshot.computeIfAbsent(snapshot.snapshotId(), id -> SnapshotFiles.addedData(io, metadata,
        snapshot));
  }
}
