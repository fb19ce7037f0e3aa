package io.floe.format.maintenance;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.PartitionStatisticsFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which files become unreachable when a table goes from metadata {@code before} to metadata {@code
 * after} by removing snapshots: the data files, position delete files, deletion-vector Puffin files,
 * equality delete files, manifests, manifest lists and statistics files that a removed snapshot
 * reaches and that no snapshot of {@code after} (hence no retained ref) reaches. A content file is
 * reached by a snapshot when a manifest of its manifest list has a live (ADDED or EXISTING) entry for
 * it; a Puffin file is reached while any of its deletion vectors is.
 *
 * <p><b>Reference plan</b> ({@link #reference}): full reachability. Dead manifest lists are those of
 * removed snapshots; dead manifests are the manifests of removed snapshots' lists that no retained
 * list holds; dead content files are the live files of dead manifests minus the live files of every
 * retained manifest (a file live in a manifest that is still retained is retained itself, so only the
 * dead manifests need reading on the expired side). Its cost grows with the whole table.
 *
 * <p><b>Fast plan</b> ({@link #fast}): its cost grows with what is expired. Call <i>boundary</i> a
 * retained snapshot whose parent is not retained (a root counts). It applies when every removed
 * snapshot is an ancestor of every boundary. Then all boundaries have the same parent P, every
 * removed snapshot is P or an ancestor of P, and every retained snapshot descends from a boundary.
 * Writers carry a manifest forward from parent to child until they rewrite or drop it, and never
 * re-add a manifest or a file path once dropped (Floe's and Iceberg's writers, cherry-pick aside). So:
 * <ul>
 *   <li>A manifest in a removed list and in a retained list R is in every list between them on R's
 *       ancestry, hence in the list of R's boundary: dead manifests = manifests of removed lists minus
 *       manifests of boundary lists (no other retained list is read).
 *   <li>A content file F live in a removed snapshot and in no retained one was removed by a snapshot X
 *       on P's ancestry: either X is removed itself, its parent (where F was live) is present in
 *       {@code before}, and X wrote a DELETED entry for F into a manifest it added ({@code
 *       added_snapshot_id} = X); or F was live in P and every boundary wrote such an entry (a boundary
 *       that kept F keeps it reachable). Conversely each such F is live in a removed snapshot and in
 *       no retained one. So only the manifests removed snapshots and boundaries added are read, and of
 *       the boundaries only those with DELETED entries. A DELETED entry whose remover's parent is
 *       gone (expired earlier) concerns a file that was live only in already-expired history; it is
 *       not counted again, as the reference plan would not see it either.
 *   <li>A Puffin file holds deletion vectors of many data files, all added by one snapshot W (found
 *       by the entries' file sequence number). Its path is dead when every deletion vector W added to
 *       it is dead by the rule above; when W is retained the path is live; when W expired earlier,
 *       the path's liveness is read from the boundaries' delete manifests (rare, and only then).
 * </ul>
 * Otherwise (branches or tags keep snapshots beside expired ones, explicit snapshot ids in the
 * middle of history, several roots) the reference plan is used. {@link #plan} chooses.
 */
public final class ExpiredFileCleanup {
  private ExpiredFileCleanup() {}

  /** The fast plan when it is exact for this change, the reference plan otherwise. */
  public static CleanupPlan plan(FileIO io, TableMetadata before, TableMetadata after) {
    CleanupPlan fast = fast(io, before, after);
    return fast != null ? fast : reference(io, before, after);
  }

  // ---- reference: full reachability -------------------------------------------------------------

  /** Dead files by full reachability over every retained manifest list and manifest. */
  public static CleanupPlan reference(FileIO io, TableMetadata before, TableMetadata after) {
    Reader reader = new Reader(io, before, false);
    CleanupPlan.Builder plan = new CleanupPlan.Builder(before.location());
    List<Snapshot> expired = expiredSnapshots(before, after);
    Set<String> retainedManifests = new HashSet<>();
    Set<String> retainedLists = new HashSet<>();
    List<ManifestFile> retained = new ArrayList<>();
    for (Snapshot s : after.snapshots()) {
      retainedLists.add(s.manifestListLocation());
      for (ManifestFile m : reader.list(s)) {
        if (retainedManifests.add(m.path())) {
          retained.add(m);
        }
      }
    }
    Map<String, ManifestFile> deadManifests = new LinkedHashMap<>();
    for (Snapshot s : expired) {
      if (s.manifestListLocation() != null && !retainedLists.contains(s.manifestListLocation())) {
        plan.add(s.manifestListLocation(), CleanupPlan.Kind.MANIFEST_LIST);
      }
      for (ManifestFile m : reader.list(s)) {
        if (!retainedManifests.contains(m.path())) {
          deadManifests.putIfAbsent(m.path(), m);
        }
      }
    }
    Map<String, ContentFile> candidates = new LinkedHashMap<>();
    for (ManifestFile m : deadManifests.values()) {
      plan.add(m.path(), CleanupPlan.Kind.MANIFEST);
      for (ManifestEntry<?> e : reader.entries(m)) {
        if (e.isLive()) {
          candidates.putIfAbsent(e.file().path(), e.file());
        }
      }
    }
    for (ManifestFile m : retained) {
      if (candidates.isEmpty()) {
        break;
      }
      for (ManifestEntry<?> e : reader.entries(m)) {
        if (e.isLive()) {
          candidates.remove(e.file().path());
        }
      }
    }
    candidates.values().forEach(f -> plan.add(f.path(), CleanupPlan.Kind.of(f)));
    addStatistics(plan, before, after);
    return plan.build(false);
  }

  // ---- fast: boundary snapshots ------------------------------------------------------------------

  /** The fast plan, or null when its condition (see the class comment) does not hold. */
  public static CleanupPlan fast(FileIO io, TableMetadata before, TableMetadata after) {
    List<Snapshot> expired = expiredSnapshots(before, after);
    Set<Long> retainedIds = new HashSet<>();
    after.snapshots().forEach(s -> retainedIds.add(s.snapshotId()));
    Set<Long> expiredIds = new HashSet<>();
    expired.forEach(s -> expiredIds.add(s.snapshotId()));
    CleanupPlan.Builder plan = new CleanupPlan.Builder(before.location());
    if (expired.isEmpty()) {
      addStatistics(plan, before, after);
      return plan.build(true);
    }
    List<Snapshot> boundaries = new ArrayList<>();
    for (Snapshot s : after.snapshots()) {
      if (s.parentId() == null || !retainedIds.contains(s.parentId())) {
        boundaries.add(s);
      }
    }
    if (boundaries.isEmpty()) {
      return null;
    }
    for (Snapshot b : boundaries) {
      if (!ancestorIds(before, b).containsAll(expiredIds)) {
        return null;
      }
    }
    for (Snapshot s : expired) {
      if (s.manifestListLocation() == null) {
        return null;
      }
    }
    Reader reader = new Reader(io, before, true);
    Set<String> boundaryManifests = new HashSet<>();
    Set<String> boundaryLists = new HashSet<>();
    for (Snapshot b : boundaries) {
      boundaryLists.add(b.manifestListLocation());
      reader.list(b).forEach(m -> boundaryManifests.add(m.path()));
    }
    Set<String> deadManifests = new LinkedHashSet<>();
    for (Snapshot s : expired) {
      if (!boundaryLists.contains(s.manifestListLocation())) {
        plan.add(s.manifestListLocation(), CleanupPlan.Kind.MANIFEST_LIST);
      }
      for (ManifestFile m : reader.list(s)) {
        if (!boundaryManifests.contains(m.path()) && deadManifests.add(m.path())) {
          plan.add(m.path(), CleanupPlan.Kind.MANIFEST);
        }
      }
    }

    // dead content keys: removed by an expired snapshot whose parent is present, or by every boundary
    Map<String, ManifestEntry<?>> dead = new LinkedHashMap<>();
    for (Snapshot x : expired) {
      if (x.parentId() != null && before.snapshot(x.parentId()) != null) {
        dead.putAll(removedBy(reader, x));
      }
    }
    Map<String, ManifestEntry<?>> removedByAll = null;
    for (Snapshot b : boundaries) {
      Map<String, ManifestEntry<?>> removed = removedBy(reader, b);
      if (removedByAll == null) {
        removedByAll = removed;
      } else {
        removedByAll.keySet().retainAll(removed.keySet());
      }
    }
    dead.putAll(removedByAll);

    Map<String, List<ManifestEntry<?>>> dvsByPath = new LinkedHashMap<>();
    for (ManifestEntry<?> e : dead.values()) {
      ContentFile f = e.file();
      if (ContentFiles.isDeletionVector(f)) {
        dvsByPath.computeIfAbsent(f.path(), p -> new ArrayList<>()).add(e);
      } else {
        plan.add(f.path(), CleanupPlan.Kind.of(f));
      }
    }
    PuffinLiveness puffins = new PuffinLiveness(reader, before, retainedIds, boundaries);
    for (Map.Entry<String, List<ManifestEntry<?>>> e : dvsByPath.entrySet()) {
      if (puffins.isDead(e.getKey(), e.getValue(), dead.keySet())) {
        plan.add(e.getKey(), CleanupPlan.Kind.POSITION_DELETES);
      }
    }
    addStatistics(plan, before, after);
    return plan.build(true);
  }

  /** Keys of the files {@code snapshot} removed: DELETED entries it wrote in manifests it added. */
  private static Map<String, ManifestEntry<?>> removedBy(Reader reader, Snapshot snapshot) {
    Map<String, ManifestEntry<?>> removed = new LinkedHashMap<>();
    for (ManifestFile m : reader.ownManifests(snapshot)) {
      if (!m.hasDeletedFiles()) {
        continue;
      }
      for (ManifestEntry<?> e : reader.entries(m)) {
        if (e.status() == ManifestEntry.Status.DELETED && Long.valueOf(snapshot.snapshotId()).equals(e.snapshotId())) {
          removed.put(ContentFiles.fileKey(e.file()), e);
        }
      }
    }
    return removed;
  }

  /** Whether a Puffin path of dead deletion vectors holds no live one (see the class comment). */
  private static final class PuffinLiveness {
    private final Reader reader;
    private final Map<Long, Snapshot> bySequenceNumber = new HashMap<>();
    private final Set<Long> retainedIds;
    private final List<Snapshot> boundaries;
    private Set<String> boundaryLivePaths;

    PuffinLiveness(Reader reader, TableMetadata before, Set<Long> retainedIds, List<Snapshot> boundaries) {
      this.reader = reader;
      this.retainedIds = retainedIds;
      this.boundaries = boundaries;
      before.snapshots().forEach(s -> bySequenceNumber.put(s.sequenceNumber(), s));
    }

    boolean isDead(String path, List<ManifestEntry<?>> deadDvs, Set<String> deadKeys) {
      Long seq = deadDvs.get(0).fileSequenceNumber();
      Snapshot writer = seq == null ? null : bySequenceNumber.get(seq);
      if (writer != null && retainedIds.contains(writer.snapshotId())) {
        return false;
      }
      if (writer != null) {
        for (ManifestFile m : reader.ownManifests(writer)) {
          if (m.content() != ManifestContent.DELETES) {
            continue;
          }
          for (ManifestEntry<?> e : reader.entries(m)) {
            if (e.status() == ManifestEntry.Status.ADDED && path.equals(e.file().path())
                && !deadKeys.contains(ContentFiles.fileKey(e.file()))) {
              return false;
            }
          }
        }
        return true;
      }
      return !boundaryLivePaths().contains(path);
    }

    private Set<String> boundaryLivePaths() {
      if (boundaryLivePaths == null) {
        boundaryLivePaths = new HashSet<>();
        for (Snapshot b : boundaries) {
          for (ManifestFile m : reader.list(b)) {
            if (m.content() == ManifestContent.DELETES) {
              reader.entries(m).stream().filter(ManifestEntry::isLive)
                  .forEach(e -> boundaryLivePaths.add(e.file().path()));
            }
          }
        }
      }
      return boundaryLivePaths;
    }
  }

  // ---- shared ------------------------------------------------------------------------------------

  private static List<Snapshot> expiredSnapshots(TableMetadata before, TableMetadata after) {
    List<Snapshot> expired = new ArrayList<>();
    for (Snapshot s : before.snapshots()) {
      if (after.snapshot(s.snapshotId()) == null) {
        expired.add(s);
      }
    }
    return expired;
  }

  /** Ids of {@code snapshot}'s ancestors present in {@code metadata} (the walk stops at a gap). */
  static Set<Long> ancestorIds(TableMetadata metadata, Snapshot snapshot) {
    Set<Long> ids = new HashSet<>();
    Snapshot p = snapshot.parentId() == null ? null : metadata.snapshot(snapshot.parentId());
    while (p != null && ids.add(p.snapshotId())) {
      p = p.parentId() == null ? null : metadata.snapshot(p.parentId());
    }
    return ids;
  }

  /** Statistics and partition-statistics files of removed snapshots that no retained entry names. */
  private static void addStatistics(CleanupPlan.Builder plan, TableMetadata before, TableMetadata after) {
    Set<String> kept = new HashSet<>();
    after.statisticsFiles().forEach(f -> kept.add(f.path()));
    after.partitionStatisticsFiles().forEach(f -> kept.add(f.path()));
    for (StatisticsFile f : before.statisticsFiles()) {
      if (after.snapshot(f.snapshotId()) == null && !kept.contains(f.path())) {
        plan.add(f.path(), CleanupPlan.Kind.STATISTICS);
      }
    }
    for (PartitionStatisticsFile f : before.partitionStatisticsFiles()) {
      if (after.snapshot(f.snapshotId()) == null && !kept.contains(f.path())) {
        plan.add(f.path(), CleanupPlan.Kind.STATISTICS);
      }
    }
  }

  /**
   * Reads manifest lists (kept) and manifests (kept when {@code cacheEntries}: the fast plan reads
   * a few manifests more than once; the reference plan reads each once) with {@code before}'s specs.
   */
  private static final class Reader {
    private final FileIO io;
    private final Map<Integer, PartitionSpec> specs;
    private final Map<String, List<ManifestFile>> lists = new HashMap<>();
    private final Map<String, List<ManifestEntry<?>>> entries = new HashMap<>();

    private final boolean cacheEntries;

    Reader(FileIO io, TableMetadata before, boolean cacheEntries) {
      this.io = io;
      this.cacheEntries = cacheEntries;
      this.specs = before.specsById();
    }

    List<ManifestFile> list(Snapshot s) {
      if (s.manifestListLocation() == null) {
        throw new IllegalStateException("Cannot clean up after expiring snapshots: snapshot " + s.snapshotId()
            + " has no manifest list (format v1 manifests are not supported)");
      }
      return lists.computeIfAbsent(s.manifestListLocation(), l -> ManifestLists.read(io.newInputFile(l)));
    }

    List<ManifestFile> ownManifests(Snapshot s) {
      List<ManifestFile> own = new ArrayList<>();
      for (ManifestFile m : list(s)) {
        if (Long.valueOf(s.snapshotId()).equals(m.snapshotId())) {
          own.add(m);
        }
      }
      return own;
    }

    List<ManifestEntry<?>> entries(ManifestFile m) {
      List<ManifestEntry<?>> read = entries.get(m.path());
      if (read == null) {
        read = ManifestReader.read(io.newInputFile(m.path()), m, specs);
        if (cacheEntries) {
          entries.put(m.path(), read);
        }
      }
      return read;
    }
  }
}
