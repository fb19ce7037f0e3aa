package io.floe.testing;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.RowDelta;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListCommit;
import io.floe.format.index.IndexLocations;
import io.floe.format.index.IndexSegment;
import io.floe.format.index.IndexSegmentWriter;
import io.floe.format.index.IndexType;
import io.floe.format.index.TableIndex;
import io.floe.format.io.LocalFileIO;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.maintenance.OrphanFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.puffin.PuffinCompressionCodec;
import io.floe.format.stats.StatisticsFileWriter;
import io.floe.format.types.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.theta.UpdateSketch;

/**
 * One crash run: a fresh table seeded with three acknowledged appends, then {@link CrashOp} with
 * {@link CrashPoint} armed (or, for a follow-up point, the operation acknowledged and then an index
 * build, a statistics write, an expiry or an orphan removal crashed). Everything it must hold
 * afterwards goes to the {@link RunLog}, checked by {@link TableInvariants}.
 */
public final class CrashScenario {
  /** How far files are back-dated to pass every grace period (orphan removal's default is 3 days). */
  public static final long GRACE_MILLIS = 4L * 24 * 3600 * 1000;

  private CrashScenario() {}

  /** Runs the scenario; returns normally after a simulated crash (mode A) and never after a halt (mode B). */
  public static void run(String warehouse, CrashPoint point, CrashOp op, int rep, boolean halt, RunLog log) {
    CrashPointFileIO io = new CrashPointFileIO(new LocalFileIO(), log, halt);
    try {
      runArmed(warehouse, point, op, rep, io, log);
      log.add("DONE", point);
    } catch (Throwable t) {
      if (!io.crashed()) {
        log.add("ERROR", t.toString().replace('\n', ' '));
      }
    }
  }

  private static void runArmed(String warehouse, CrashPoint point, CrashOp op, int rep, CrashPointFileIO io,
      RunLog log) throws IOException {
    FileSystemCatalog catalog = ReliabilityTables.catalog(io, warehouse);
    Map<String, String> props = point == CrashPoint.DURING_ABORT_CLEANUP
        ? Map.of("commit.retry.num-retries", "0") : Map.of();
    FileSystemTableOperations ops = ReliabilityTables.create(catalog, props);
    List<DataFile> seeds = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DataFile file = ReliabilityTables.writeDataFile(io, ops.current());
      Snapshot s = new AppendFiles(ops).appendFile(file).commit();
      seeds.add(file);
      log.add(point == CrashPoint.DURING_EXPIRE_DELETES ? "SEED" : "MUST", s.snapshotId());
      log.add("CURRENT", s.snapshotId());
    }
    if (point == CrashPoint.DURING_ORPHAN_DELETES) {
      plantOrphans(ops.current().location(), 3);
    }
    if (!point.followUp()) {
      io.arm(point, occurrence(point, op, rep));
    }
    if (point == CrashPoint.DURING_ABORT_CLEANUP) {
      io.beforeNextPublish(() -> competingAppend(warehouse, log));
    }
    SnapshotProducer producer = operation(op, ops, io, seeds, log);
    Snapshot committed = producer.commit();
    log.add("MUST", committed.snapshotId());
    log.add("CURRENT", committed.snapshotId());
    if (point.followUp()) {
      io.arm(point, occurrence(point, op, rep));
      followUp(point, ops, io, committed);
    }
  }

  /** Which event of the point crashes: "after each manifest" and the deletion loops vary it by repetition. */
  static int occurrence(CrashPoint point, CrashOp op, int rep) {
    switch (point) {
      case AFTER_MANIFEST:
        return 1 + (rep - 1) % (op == CrashOp.APPEND ? 1 : 2);
      case DURING_EXPIRE_DELETES:
      case DURING_ORPHAN_DELETES:
        return 1 + (rep - 1) % 3;
      default:
        return 1;
    }
  }

  private static SnapshotProducer operation(CrashOp op, FileSystemTableOperations ops, CrashPointFileIO io,
      List<DataFile> seeds, RunLog log) {
    TableMetadata base = ops.current();
    switch (op) {
      case APPEND: {
        AppendFiles append = new AppendFiles(ops);
        log.add("UNACKED", append.snapshotId());
        return append.appendFile(ReliabilityTables.writeDataFile(io, base));
      }
      case ROW_DELTA: {
        RowDelta delta = new RowDelta(ops);
        log.add("UNACKED", delta.snapshotId());
        delta.addRows(ReliabilityTables.writeDataFile(io, base));
        delta.addDeletes(ReliabilityTables.writeDeletionVector(io, base, seeds.get(0)));
        delta.validateDataFilesExist(List.of(seeds.get(0).path()));
        return delta;
      }
      default: {
        OverwriteFiles overwrite = new OverwriteFiles(ops);
        log.add("UNACKED", overwrite.snapshotId());
        return overwrite.addFile(ReliabilityTables.writeDataFile(io, base)).deleteFile(seeds.get(1).path());
      }
    }
  }

  /** Another writer's append, published just before ours: our commit then fails (a known failure). */
  private static void competingAppend(String warehouse, RunLog log) {
    LocalFileIO io = new LocalFileIO();
    FileSystemTableOperations other = ReliabilityTables.catalog(io, warehouse).loadTable(ReliabilityTables.IDENT);
    Snapshot s = new AppendFiles(other).appendFile(ReliabilityTables.writeDataFile(io, other.current())).commit();
    log.add("MUST", s.snapshotId());
    log.add("CURRENT", s.snapshotId());
    log.add("KNOWN_FAILURE", "lost the race to " + s.snapshotId());
  }

  private static void followUp(CrashPoint point, FileSystemTableOperations ops, CrashPointFileIO io,
      Snapshot snapshot) {
    switch (point) {
      case AFTER_INDEX_WRITE: {
        String location = IndexLocations.newSegment(ops.metadataRoot() + "/metadata", "by_id");
        IndexSegment segment = IndexSegmentWriter.builder(IndexType.BTREE, 1, Types.LongType.get())
            .snapshot(snapshot.snapshotId(), snapshot.sequenceNumber()).build()
            .addIntegral(ops.current().location() + "/data/x.parquet", new long[] {1, 2, 3}, false)
            .write(io.newOutputFile(location));
        IndexListCommit.commit(ops, "db.t", (current, base) -> IndexList.buildFrom(current)
            .add(TableIndex.builder("by_id", IndexType.BTREE, 1).addSegment(segment).build()).build());
        break;
      }
      case DURING_STATS_WRITE: {
        UpdateSketch sketch = UpdateSketch.builder().build();
        for (long v = 0; v < 100; v++) {
          sketch.update(v);
        }
        StatisticsFile file = StatisticsFileWriter.write(io, StatisticsFileWriter.newLocation(ops, snapshot.snapshotId()),
            snapshot, Map.of(1, sketch), PuffinCompressionCodec.NONE);
        TableMetadata base = ops.refresh();
        ops.commit(base, TableMetadata.buildFrom(base).setStatistics(file).build());
        break;
      }
      case DURING_EXPIRE_DELETES:
        new ExpireSnapshots(ops).expireOlderThan(System.currentTimeMillis() + 60_000).retainLast(1)
            .maxConcurrentDeletes(1).commit();
        break;
      default:
        OrphanFiles.of(ops).execute();
        break;
    }
  }

  /** Files no metadata names, back-dated past the grace period, for orphan removal to delete. */
  private static void plantOrphans(String tableLocation, int count) throws IOException {
    Path data = LocalFileIO.toPath(tableLocation + "/data");
    Files.createDirectories(data);
    for (int i = 0; i < count; i++) {
      Path orphan = data.resolve("planted-orphan-" + i + ".parquet");
      Files.write(orphan, ReliabilityTables.MAGIC);
      Files.setLastModifiedTime(orphan, FileTime.fromMillis(System.currentTimeMillis() - GRACE_MILLIS));
    }
  }

  static void backdate(Path root) {
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - GRACE_MILLIS);
    try (var files = Files.walk(root)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Files.setLastModifiedTime(p, old);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
