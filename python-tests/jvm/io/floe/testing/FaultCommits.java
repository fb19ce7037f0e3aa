package io.floe.testing;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.RowDelta;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * R3's I/O-fault run: {@code FaultCommits DIR ATTEMPTS SEED} makes ATTEMPTS appends, row deltas and
 * overwrites on one table through a {@link FlakyFileIO} (p = 0.10) and checks each outcome against
 * the table read through a clean FileIO: a returned commit is current; an unknown outcome
 * (CommitStateUnknownException) either landed or left the table as it was, and deleted none of its
 * files; any other failure left the table at its previous snapshot. Then no data file is live twice
 * and the {@link TableInvariants} hold. Prints {@code SUMMARY key=value ...} and {@code VIOLATION} lines.
 */
public final class FaultCommits {
  private FaultCommits() {}

  public static void main(String[] args) throws Exception {
    Files.createDirectories(Paths.get(args[0]));
    String warehouse = CrashMatrix.uri(Paths.get(args[0]));
    int attempts = Integer.parseInt(args[1]);
    FlakyFileIO io = new FlakyFileIO(new LocalFileIO(), Long.parseLong(args[2]), 0.10);
    FileSystemTableOperations ops = ReliabilityTables.create(ReliabilityTables.catalog(io, warehouse), Map.of(
        "commit.retry.num-retries", "3", "commit.retry.min-wait-ms", "1", "commit.retry.max-wait-ms", "4"));
    FileSystemTableOperations clean = ReliabilityTables.catalog(new LocalFileIO(), warehouse)
        .loadTable(ReliabilityTables.IDENT);
    List<DataFile> withoutDv = new ArrayList<>();
    Set<Long> landed = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      DataFile file = ReliabilityTables.writeDataFile(io, ops.current());
      landed.add(new AppendFiles(ops).appendFile(file).commit().snapshotId());
      withoutDv.add(file);
    }
    Map<String, Integer> outcomes = new HashMap<>();
    List<String> violations = new ArrayList<>();
    for (int i = 0; i < attempts; i++) {
      long before = clean.refresh().currentSnapshot().snapshotId();
      io.startAttempt();
      io.enable(true);
      SnapshotProducer producer = null;
      DataFile target = withoutDv.isEmpty() ? null : withoutDv.get(i % withoutDv.size());
      int kind = target == null ? 0 : i % 3;
      DataFile added = null;
      String outcome;
      try {
        TableMetadata base = ops.refresh();
        added = ReliabilityTables.writeDataFile(io, base);
        if (kind == 0) {
          producer = new AppendFiles(ops).appendFile(added);
        } else if (kind == 1) {
          producer = new RowDelta(ops).addRows(added)
              .addDeletes(ReliabilityTables.writeDeletionVector(io, base, target))
              .validateDataFilesExist(List.of(target.path()));
        } else {
          producer = new OverwriteFiles(ops).addFile(added).deleteFile(target.path());
        }
        producer.commit();
        outcome = "acked";
      } catch (CommitStateUnknownException e) {
        outcome = "unknown";
      } catch (RuntimeException e) {
        outcome = "failed";
      }
      io.enable(false);
      long after = clean.refresh().currentSnapshot().snapshotId();
      boolean ours = producer != null && after == producer.snapshotId();
      if (outcome.equals("acked") && !ours) {
        violations.add("attempt " + i + ": the commit of snapshot " + producer.snapshotId() + " returned but the "
            + "table is at " + after + " (version " + clean.currentVersion() + ", the writer's " + ops.currentVersion()
            + "; in history: " + (clean.current().snapshot(producer.snapshotId()) != null) + ")");
      } else if (outcome.equals("failed") && after != before) {
        violations.add("attempt " + i + ": the commit failed but the table moved from " + before + " to " + after
            + (ours ? " (its own snapshot landed)" : ""));
      } else if (outcome.equals("unknown")) {
        outcome = ours ? "unknown-landed" : "unknown-not-landed";
        for (String file : io.deleted()) {
          if (io.written().contains(file) && !CrashPointFileIO.isTemporary(file)) {
            violations.add("attempt " + i + ": outcome unknown, yet its file " + file + " was deleted");
          }
        }
      }
      outcomes.merge(outcome, 1, Integer::sum);
      if (ours) {
        landed.add(after);
        if (kind == 1 || kind == 2) {
          withoutDv.remove(target);
        }
        withoutDv.add(added);
      }
    }
    TableMetadata last = clean.refresh();
    try {
      violations.addAll(duplicates(clean, last));
    } catch (RuntimeException e) {
      violations.add("the current snapshot does not read: " + e);
    }
    TableInvariants.Result result = new TableInvariants.Result();
    TableInvariants.checkTable(warehouse, landed, last.currentSnapshot().snapshotId(), null, result);
    violations.addAll(result.violations);
    StringBuilder summary = new StringBuilder("SUMMARY attempts=" + attempts);
    outcomes.forEach((k, v) -> summary.append(' ').append(k).append('=').append(v));
    io.injected().forEach((k, v) -> summary.append(" fault.").append(k).append('=').append(v));
    summary.append(" orphans=").append(result.orphansRemoved).append(" violations=").append(violations.size());
    System.out.println(summary);
    violations.forEach(v -> System.out.println("VIOLATION " + v));
  }

  /** Data files live more than once in the current snapshot (a commit applied twice). */
  private static List<String> duplicates(FileSystemTableOperations ops, TableMetadata metadata) {
    Map<String, Integer> live = new HashMap<>();
    Snapshot head = metadata.currentSnapshot();
    for (ManifestFile manifest : ManifestLists.read(ops.io().newInputFile(head.manifestListLocation()))) {
      for (ManifestEntry<?> entry : ManifestReader.read(ops.io().newInputFile(manifest.path()), manifest,
          metadata.specsById())) {
        if (entry.status() != ManifestEntry.Status.DELETED) {
          live.merge(entry.file().path() + "#" + entry.file().content(), 1, Integer::sum);
        }
      }
    }
    List<String> found = new ArrayList<>();
    live.forEach((path, n) -> {
      if (n > 1) {
        found.add("duplicate: " + path + " is live " + n + " times");
      }
    });
    return found;
  }
}
