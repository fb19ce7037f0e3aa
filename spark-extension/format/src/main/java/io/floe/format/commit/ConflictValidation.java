package io.floe.format.commit;

import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.expr.InclusiveMetricsEvaluator;
import io.floe.format.expr.Projections;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks the commits that landed after the snapshot an operation read (its starting snapshot)
 * against what the operation is about to commit, as Iceberg's writers do:
 * <ul>
 *   <li>data files added concurrently (by {@code append} or {@code overwrite} snapshots) that may
 *       hold rows matching the operation's conflict detection filter, when the operation asked for
 *       it (serializable isolation);</li>
 *   <li>delete files added concurrently (by {@code overwrite} or {@code delete} snapshots) that
 *       apply to a data file the operation removes or adds deletes for, when asked for (always, for
 *       row-level operations: otherwise deleted rows would come back, or two deletion vectors would
 *       exist for one data file);</li>
 *   <li>data files added concurrently at a path the operation adds too, when given such paths
 *       ({@code add_files}: the table would list one file twice).</li>
 * </ul>
 * A conflict is a {@link ValidationException} naming the table, the conflicting snapshot and the
 * file: retrying the commit cannot help; the operation must be run again.
 */
final class ConflictValidation {
  private final String tableName;
  private final FileIO io;
  private final Long startingSnapshotId;
  private final Expression filter;
  private final boolean checkData;
  private final boolean checkDeletes;
  private String branch = SnapshotRef.MAIN_BRANCH;
  private Set<String> addedPaths = Set.of();

  ConflictValidation(String tableName, FileIO io, Long startingSnapshotId, Expression filter, boolean checkData,
      boolean checkDeletes) {
    this.tableName = tableName;
    this.io = io;
    this.startingSnapshotId = startingSnapshotId;
    this.filter = filter == null ? Expressions.alwaysTrue() : filter;
    this.checkData = checkData;
    this.checkDeletes = checkDeletes;
  }

  /** Validates the history of {@code branch} (the one the commit moves) rather than main's. */
  ConflictValidation onBranch(String branchName) {
    this.branch = branchName;
    return this;
  }

  /** Fails when a concurrent commit added a data file at one of {@code paths} (this commit adds them too). */
  ConflictValidation rejectingAddsOf(Set<String> paths) {
    this.addedPaths = paths;
    return this;
  }

  /**
   * @param touchedFiles live data files of {@code base} this commit removes or adds deletes for,
   *     by path
   */
  void validate(TableMetadata base, Map<String, DataFile> touchedFiles) {
    boolean checkPaths = !addedPaths.isEmpty();
    if (!checkData && !checkDeletes && !checkPaths) {
      return;
    }
    Map<Integer, Evaluator> partitionEvaluators = new HashMap<>();
    InclusiveMetricsEvaluator metrics = metricsEvaluator(base);
    Set<PartitionKey> touchedPartitions = new HashSet<>();
    touchedFiles.values().forEach(f -> touchedPartitions.add(partitionKey(f)));
    for (Snapshot snapshot : snapshotsSinceStart(base)) {
      String operation = snapshot.operation();
      boolean addsData = "append".equals(operation) || "overwrite".equals(operation);
      boolean addsDeletes = "overwrite".equals(operation) || "delete".equals(operation);
      boolean readData = (checkData || checkPaths) && addsData;
      if (!readData && !(checkDeletes && addsDeletes)) {
        continue;
      }
      for (ManifestFile manifest : ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()))) {
        if (manifest.snapshotId() == null || manifest.snapshotId() != snapshot.snapshotId()
            || !manifest.hasAddedFiles()) {
          continue;
        }
        boolean dataManifest = manifest.content() == ManifestContent.DATA;
        if (dataManifest ? !readData : !(checkDeletes && addsDeletes)) {
          continue;
        }
        for (ManifestEntry<?> entry : ManifestReader.read(io.newInputFile(manifest.path()), manifest,
            base.specsById())) {
          if (entry.status() != ManifestEntry.Status.ADDED || !Long.valueOf(snapshot.snapshotId())
              .equals(entry.snapshotId())) {
            continue;
          }
          if (entry.file() instanceof DataFile file) {
            if (!addedPaths.isEmpty() && addedPaths.contains(SnapshotProducer.canonicalOrSelf(file.path()))) {
              throw conflict(snapshot, "added data file " + file.path() + ", which this operation adds too "
                  + "(the table would list it twice and read its rows twice)");
            }
            if (checkData && mayMatch(base, file, partitionEvaluators, metrics)) {
              throw conflict(snapshot, "added data file " + file.path() + " that may contain rows matching "
                  + filter + " (serializable isolation)");
            }
          } else {
            checkDeleteFile(base, snapshot, (DeleteFile) entry.file(), touchedFiles, touchedPartitions,
                partitionEvaluators);
          }
        }
      }
    }
  }

  private void checkDeleteFile(TableMetadata base, Snapshot snapshot, DeleteFile file, Map<String, DataFile> touched,
      Set<PartitionKey> touchedPartitions, Map<Integer, Evaluator> partitionEvaluators) {
    if (touched.isEmpty()) {
      return;
    }
    if (file.content() == FileContent.POSITION_DELETES) {
      String referenced = ContentFiles.referencedDataFile(file);
      if (referenced != null ? touched.containsKey(referenced) : touchedPartitions.contains(partitionKey(file))) {
        throw conflict(snapshot, "added delete file " + ContentFiles.deleteFileKey(file) + " for data file "
            + (referenced != null ? referenced : "(any) in partition " + file.partition())
            + " that this operation rewrites or deletes from");
      }
    } else if (file.content() == FileContent.EQUALITY_DELETES) {
      PartitionSpec spec = base.specsById().get(file.specId());
      boolean global = spec == null || spec.isUnpartitioned();
      if (global || touchedPartitions.contains(partitionKey(file))
          || partitionMayMatch(base, file, partitionEvaluators)) {
        throw conflict(snapshot, "added equality delete file " + file.path()
            + " that may delete rows this operation rewrites");
      }
    }
  }

  private ValidationException conflict(Snapshot snapshot, String what) {
    return new ValidationException("Cannot commit to table " + tableName + ": concurrent snapshot "
        + snapshot.snapshotId() + " (" + snapshot.operation() + ", committed after snapshot "
        + (startingSnapshotId == null ? "none (empty table)" : startingSnapshotId) + " that this operation read) "
        + what + ". Run the operation again");
  }

  /** The snapshots after the starting one on the current branch, oldest first (see {@link ValidationHistory}). */
  private List<Snapshot> snapshotsSinceStart(TableMetadata base) {
    Snapshot head = ManageRefs.branchHead(base, branch, tableName);
    List<Snapshot> newer = ValidationHistory.since(base, head, startingSnapshotId);
    if (newer == null) {
      throw new ValidationException("Cannot commit to table " + tableName + ": the snapshot this operation read ("
          + (startingSnapshotId == null ? "none (empty table)" : startingSnapshotId)
          + ") is no longer an ancestor of the head of branch " + branch + " "
          + (head == null ? "(none)" : head.snapshotId())
          + ", or snapshots committed after it were expired (the table was rolled back, replaced or expired "
          + "concurrently). Run the operation again");
    }
    return newer;
  }

  private InclusiveMetricsEvaluator metricsEvaluator(TableMetadata base) {
    try {
      return new InclusiveMetricsEvaluator(base.schema(), filter);
    } catch (RuntimeException e) {
      return null; // the filter no longer binds (a column was dropped): every file may match
    }
  }

  private boolean mayMatch(TableMetadata base, DataFile file, Map<Integer, Evaluator> partitionEvaluators,
      InclusiveMetricsEvaluator metrics) {
    return partitionMayMatch(base, file, partitionEvaluators) && (metrics == null || metrics.eval(file));
  }

  private boolean partitionMayMatch(TableMetadata base, ContentFile file, Map<Integer, Evaluator> evaluators) {
    PartitionSpec spec = base.specsById().get(file.specId());
    if (spec == null || filter.op() == Expression.Operation.TRUE) {
      return true;
    }
    Evaluator evaluator = evaluators.computeIfAbsent(file.specId(), id -> {
      try {
        return new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(filter));
      } catch (RuntimeException e) {
        return null;
      }
    });
    return evaluator == null || evaluator.eval(file.partition());
  }

  /** A spec id and partition tuple, compared by value. */
  private record PartitionKey(int specId, PartitionData partition) {
  }

  private static PartitionKey partitionKey(ContentFile file) {
    return new PartitionKey(file.specId(), file.partition());
  }
}
