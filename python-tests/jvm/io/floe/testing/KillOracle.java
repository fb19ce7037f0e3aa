package io.floe.testing;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.FileContent;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.io.WriteMarkers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * R3's kill rounds: {@code KillOracle create DIR} creates db.t for racing writers (generous commit
 * retries); {@code KillOracle check DIR LOG...} checks the table after the rounds. It reads every writer's
 * {@code ACK} lines; every acknowledged snapshot is in the history and its data file live exactly
 * once; every other snapshot is a landed-unacknowledged commit, at most one per killed writer;
 * then the {@link TableInvariants} (the next commit succeeds, orphan removal cleans the leftovers).
 * Prints {@code SUMMARY acked=.. landed_unacked=.. orphans=.. violations=..} and {@code VIOLATION} lines.
 */
public final class KillOracle {
  private KillOracle() {}

  public static void main(String[] args) throws Exception {
    Files.createDirectories(Paths.get(args[1]));
    String warehouse = CrashMatrix.uri(Paths.get(args[1]));
    if (args[0].equals("create")) {
      ReliabilityTables.create(ReliabilityTables.catalog(new LocalFileIO(), warehouse), Map.of(
          "commit.retry.num-retries", "200", "commit.retry.min-wait-ms", "2", "commit.retry.max-wait-ms", "40",
          "write.metadata.previous-versions-max", "10"));
      return;
    }
    Set<Long> acked = new HashSet<>();
    Set<String> ackedFiles = new HashSet<>();
    for (int i = 2; i < args.length; i++) {
      for (String line : Files.readAllLines(Path.of(args[i]), StandardCharsets.UTF_8)) {
        String[] parts = line.split(" ");
        if (parts.length == 3 && parts[0].equals("ACK")) {
          acked.add(Long.parseLong(parts[1]));
          ackedFiles.add(parts[2]);
        }
      }
    }
    List<String> violations = new ArrayList<>();
    FileSystemTableOperations ops = ReliabilityTables.catalog(new LocalFileIO(), warehouse)
        .loadTable(ReliabilityTables.IDENT);
    TableMetadata metadata = ops.refresh();
    Map<String, Integer> live = new HashMap<>();
    Snapshot head = metadata.currentSnapshot();
    for (ManifestFile manifest : ManifestLists.read(ops.io().newInputFile(head.manifestListLocation()))) {
      for (ManifestEntry<?> entry : ManifestReader.read(ops.io().newInputFile(manifest.path()), manifest,
          metadata.specsById())) {
        if (entry.status() != ManifestEntry.Status.DELETED && entry.file().content() == FileContent.DATA) {
          live.merge(entry.file().path(), 1, Integer::sum);
        }
      }
    }
    live.forEach((path, n) -> {
      if (n > 1) {
        violations.add("data file live " + n + " times: " + path);
      }
    });
    for (String file : ackedFiles) {
      if (!live.containsKey(file)) {
        violations.add("(d) acknowledged data file missing: " + file);
      }
    }
    Map<String, Integer> unackedPerWriterRound = new HashMap<>();
    int landedUnacked = 0;
    for (String file : live.keySet()) {
      String name = WriteMarkers.fileName(file);
      if (!ackedFiles.contains(file) && name.startsWith("w")) {
        landedUnacked += 1;
        String writerRound = name.substring(0, name.lastIndexOf('-'));
        if (unackedPerWriterRound.merge(writerRound, 1, Integer::sum) > 1) {
          violations.add("(b) more than one unacknowledged commit landed for writer-round " + writerRound);
        }
      }
    }
    TableInvariants.Result result = new TableInvariants.Result();
    TableInvariants.checkTable(warehouse, acked, null, null, result);
    violations.addAll(result.violations);
    System.out.println("SUMMARY acked=" + acked.size() + " landed_unacked=" + landedUnacked + " snapshots="
        + metadata.snapshots().size() + " orphans=" + result.orphansRemoved + " violations=" + violations.size());
    violations.forEach(v -> System.out.println("VIOLATION " + v));
  }
}
