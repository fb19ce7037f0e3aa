package io.floe.testing;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.deletes.DeletionVector;
import io.floe.format.index.IndexFileCleanup;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListFiles;
import io.floe.format.io.FileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.maintenance.OrphanFiles;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.MetadataLogEntry;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.stats.StatisticsFileReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The assertions of R3 (docs/reliability.md) on a table after a crash or a fault, through a clean
 * FileIO: (a) it loads; (b) it is at the last acknowledged snapshot or at the crashed operation's
 * own one (landed, unacknowledged); (c) every file its metadata references exists and parses;
 * (d) no acknowledged snapshot is missing; (e) the next commit succeeds; (f) the operation deleted
 * none of the files it wrote unless it knew it had failed; (g) once past the grace period, orphan
 * removal (and the index clean-up expire_snapshots runs) deletes every leftover and nothing referenced.
 */
public final class TableInvariants {
  /** What the check found. */
  public static final class Result {
    public final List<String> violations = new ArrayList<>();
    public boolean landedUnacked;
    public int orphansRemoved;
  }

  private TableInvariants() {}

  /** Checks the table of a crash run against its log. */
  public static Result check(String warehouse, RunLog log) {
    Result result = new Result();
    if (!log.values("ERROR").isEmpty()) {
      result.violations.add("the run failed before its crash point: " + log.values("ERROR"));
    }
    if (log.values("CRASH").isEmpty()) {
      result.violations.add("the crash point was never reached");
    }
    Set<Long> must = new HashSet<>();
    log.values("MUST").forEach(v -> must.add(Long.parseLong(v)));
    String unacked = log.last("UNACKED");
    Long unknown = unacked == null || must.contains(Long.parseLong(unacked)) ? null : Long.parseLong(unacked);
    Long current = log.last("CURRENT") == null ? null : Long.parseLong(log.last("CURRENT"));
    List<String> deletedOwn = new ArrayList<>();
    if (log.values("KNOWN_FAILURE").isEmpty()) {
      Set<String> written = new HashSet<>(log.valuesAfter("W", "ARMED"));
      for (String deleted : log.valuesAfter("D", "ARMED")) {
        if (written.contains(deleted) && !CrashPointFileIO.isTemporary(deleted)) {
          deletedOwn.add(deleted);
        }
      }
    }
    if (!deletedOwn.isEmpty()) {
      result.violations.add("(f) files of a commit whose outcome was unknown were deleted: " + deletedOwn);
    }
    checkTable(warehouse, must, current, unknown, result);
    return result;
  }

  /**
   * (a)-(e) and (g) for a table that must hold the snapshots {@code must} and be at {@code current}
   * or at {@code unknown} (landed without acknowledgement).
   */
  public static void checkTable(String warehouse, Set<Long> must, Long current, Long unknown, Result result) {
    List<String> violations = result.violations;
    LocalFileIO io = new LocalFileIO();
    FileSystemCatalog catalog = ReliabilityTables.catalog(io, warehouse);
    FileSystemTableOperations ops;
    TableMetadata metadata;
    try {
      ops = catalog.loadTable(ReliabilityTables.IDENT);
      metadata = ops.refresh();
    } catch (RuntimeException e) {
      violations.add("(a) the table does not load: " + e);
      return;
    }
    Snapshot head = metadata.currentSnapshot();
    Long headId = head == null ? null : head.snapshotId();
    if (current != null && !current.equals(headId)) {
      if (unknown != null && unknown.equals(headId)) {
        result.landedUnacked = true;
      } else {
        violations.add("(b) the table is at snapshot " + headId + ", neither the last acknowledged " + current
            + " nor the unacknowledged " + unknown);
      }
    }
    for (long id : must) {
      if (metadata.snapshot(id) == null) {
        violations.add("(d) acknowledged snapshot " + id + " is missing");
      }
    }
    Set<String> referenced = referencedFiles(io, metadata, violations, "(c)");
    try {
      Snapshot next = new AppendFiles(ops).appendFile(ReliabilityTables.writeDataFile(io, metadata)).commit();
      if (ops.refresh().currentSnapshot().snapshotId() != next.snapshotId()) {
        violations.add("(e) the next commit returned but the table is not at its snapshot");
      }
    } catch (RuntimeException e) {
      violations.add("(e) the next commit failed: " + e);
    }
    result.orphansRemoved = removeLeftovers(ops, violations);
  }

  /**
   * (g): back-dates the table's files past the grace period, then runs the maintenance a user would:
   * expire_snapshots down to the newest snapshot (which finishes an expiry whose deletion loop was
   * interrupted: orphan removal keeps a file a retained manifest still names, even as deleted),
   * orphan removal, and the index clean-up of expire_snapshots; then nothing but referenced files may
   * be left.
   */
  static int removeLeftovers(FileSystemTableOperations ops, List<String> violations) {
    TableMetadata metadata = ops.refresh();
    Path root = LocalFileIO.toPath(metadata.location());
    CrashScenario.backdate(root);
    int removed;
    try {
      new ExpireSnapshots(ops).expireOlderThan(System.currentTimeMillis()).retainLast(1).commit();
      referencedFiles(ops.io(), ops.refresh(), violations, "(g) after expiry");
      removed = OrphanFiles.of(ops).execute().size();
      for (String file : IndexFileCleanup.unreferenced(ops.io(), "db.t", ops.metadataRoot() + "/metadata",
          ops.refresh(), System.currentTimeMillis())) {
        removed += ops.io().deleteFile(file) ? 1 : 0;
      }
    } catch (IOException | RuntimeException e) {
      violations.add("(g) orphan removal failed: " + e);
      return 0;
    }
    metadata = ops.refresh();
    Set<String> referenced = referencedFiles(ops.io(), metadata, violations, "(g) after orphan removal");
    try (var files = Files.walk(root)) {
      files.filter(Files::isRegularFile).map(Path::toString)
          .filter(f -> !referenced.contains(f) && !f.endsWith("/metadata/version-hint.text"))
          .forEach(f -> violations.add("(g) leftover not removed by orphan removal: " + f));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return removed;
  }

  /** Local paths of every file {@code metadata} references; a missing or unreadable one is a violation. */
  public static Set<String> referencedFiles(FileIO io, TableMetadata metadata, List<String> violations, String tag) {
    Set<String> files = new HashSet<>();
    List<String> metadataFiles = new ArrayList<>();
    metadataFiles.add(metadata.metadataFileLocation());
    for (MetadataLogEntry entry : metadata.previousFiles()) {
      metadataFiles.add(entry.file());
    }
    metadataFiles.forEach(f -> present(io, f, files, violations, tag));
    for (Snapshot snapshot : metadata.snapshots()) {
      try {
        if (!present(io, snapshot.manifestListLocation(), files, violations, tag)) {
          continue;
        }
        for (ManifestFile manifest : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
          if (!present(io, manifest.path(), files, violations, tag)) {
            continue;
          }
          for (ManifestEntry<?> entry : ManifestReader.read(io.newInputFile(manifest.path()), manifest,
              metadata.specsById())) {
            if (entry.status() != ManifestEntry.Status.DELETED && present(io, entry.file().path(), files, violations,
                tag)) {
              parse(io, entry.file());
            }
          }
        }
      } catch (RuntimeException e) {
        violations.add(tag + " snapshot " + snapshot.snapshotId() + " does not read: " + e);
      }
    }
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      if (present(io, stats.path(), files, violations, tag)) {
        try {
          StatisticsFileReader.thetaSketches(io, stats);
        } catch (RuntimeException e) {
          violations.add(tag + " statistics file does not read: " + e);
        }
      }
    }
    String indexList = IndexListFiles.currentLocation(metadata.properties());
    if (indexList != null && present(io, indexList, files, violations, tag)) {
      IndexList list = IndexListFiles.read(io, "db.t", metadata.properties());
      list.segmentPaths().forEach(p -> present(io, p, files, violations, tag));
    }
    return files;
  }

  private static boolean present(FileIO io, String location, Set<String> files, List<String> violations,
      String tag) {
    files.add(LocalFileIO.toPath(location).toString());
    try {
      if (io.exists(location)) {
        return true;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    violations.add(tag + " referenced file is missing: " + location);
    return false;
  }

  /** Data files must carry Parquet's magic at both ends; deletion vectors must read with their checksum. */
  private static void parse(FileIO io, ContentFile file) {
    if (file instanceof DeleteFile dv && file.content() == FileContent.POSITION_DELETES
        && dv.contentOffset() != null) {
      DeletionVector.read(io.newInputFile(file.path()), dv.contentOffset(), dv.contentSizeInBytes(),
          file.recordCount());
      return;
    }
    try (InputStream in = io.newInputFile(file.path()).newStream()) {
      byte[] bytes = in.readAllBytes();
      byte[] magic = ReliabilityTables.MAGIC;
      if (bytes.length < 2 * magic.length
          || !Arrays.equals(Arrays.copyOfRange(bytes, 0, magic.length), magic)
          || !Arrays.equals(Arrays.copyOfRange(bytes, bytes.length - magic.length, bytes.length), magic)) {
        throw new IllegalStateException("not a Parquet file (no PAR1 magic at both ends): " + file.path());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
