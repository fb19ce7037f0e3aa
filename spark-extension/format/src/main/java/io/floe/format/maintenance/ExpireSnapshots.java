package io.floe.format.maintenance;

import io.floe.format.catalog.TableLocations;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.commit.TableOperations;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.metadata.TableProperties;
import io.floe.format.types.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Expires snapshots (spec: snapshot retention). Which snapshots go:
 * <ol>
 *   <li>Refs other than {@code main} whose snapshot is older than the ref's {@code max-ref-age-ms}
 *       (else the table's {@code history.expire.max-ref-age-ms}, default forever) are dropped.
 *   <li>The snapshot of every remaining ref is kept.
 *   <li>For every remaining branch, its ancestors are kept while fewer than {@code
 *       min-snapshots-to-keep} were kept for it or while they are younger than {@code
 *       max-snapshot-age-ms}. The ref's own settings win; else {@link #retainLast} and {@link
 *       #expireOlderThan}; else the table properties {@code history.expire.min-snapshots-to-keep}
 *       (default 1) and {@code history.expire.max-snapshot-age-ms} (default 5 days).
 *   <li>Snapshots no ref reaches are kept when younger than the expiry timestamp.
 *   <li>Every other snapshot, and every snapshot named by {@link #expireSnapshotId} (an error when it
 *       is the snapshot of a ref), expires.
 * </ol>
 * The metadata change (snapshots and dropped refs removed, snapshot-log trimmed, statistics of removed
 * snapshots removed, optionally unused specs and schemas removed) is recomputed from the newest
 * metadata when another writer committed first. Its {@link CleanupPlan} is computed and checked to lie
 * inside the table location <b>before</b> the commit, so a metadata file that points outside leaves
 * the table unchanged and deletes nothing; the files are deleted only after the commit succeeded, and
 * never after an unknown commit outcome. Tables with {@code gc.enabled=false} are refused.
 */
public final class ExpireSnapshots {
  public static final String MAX_REF_AGE_MS = TableProperties.MAX_REF_AGE_MS;
  public static final String GC_ENABLED = TableProperties.GC_ENABLED;

  private final TableOperations ops;
  private Long olderThan;
  private Integer retainLast;
  private final Set<Long> explicitIds = new LinkedHashSet<>();
  private boolean cleanExpiredMetadata;
  private boolean cleanExpiredFiles = true;
  private int threads = FileDeleter.DEFAULT_THREADS;
  private Long now;
  private Consumer<String> phases = phase -> { };

  public ExpireSnapshots(TableOperations ops) {
    this.ops = ops;
  }

  /** Unreferenced snapshots, and branch ancestors beyond the minimum to keep, older than this expire. */
  public ExpireSnapshots expireOlderThan(long timestampMillis) {
    this.olderThan = timestampMillis;
    return this;
  }

  /** Branches without their own min-snapshots-to-keep keep at least this many ancestors (at least 1). */
  public ExpireSnapshots retainLast(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("Cannot expire snapshots of table " + ops.tableName()
          + ": retain_last must be at least 1, got " + count);
    }
    this.retainLast = count;
    return this;
  }

  public ExpireSnapshots expireSnapshotId(long snapshotId) {
    explicitIds.add(snapshotId);
    return this;
  }

  /** Also removes partition specs and schemas that no retained snapshot uses (never the current ones). */
  public ExpireSnapshots cleanExpiredMetadata(boolean clean) {
    this.cleanExpiredMetadata = clean;
    return this;
  }

  /** Whether unreachable files are deleted after the commit (default true). */
  public ExpireSnapshots cleanExpiredFiles(boolean clean) {
    this.cleanExpiredFiles = clean;
    return this;
  }

  public ExpireSnapshots maxConcurrentDeletes(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("Cannot expire snapshots of table " + ops.tableName()
          + ": max_concurrent_deletes must be at least 1, got " + count);
    }
    this.threads = count;
    return this;
  }

  /** The clock for age checks (tests); defaults to the time of {@link #commit()}. */
  public ExpireSnapshots now(long millis) {
    this.now = millis;
    return this;
  }

  /**
   * Tells {@code listener} each phase as it ends, with its counts: the plan (snapshots to expire, files
   * to delete), the commit, the deletes. Engines log these lines as progress.
   */
  public ExpireSnapshots onPhase(Consumer<String> listener) {
    this.phases = listener;
    return this;
  }

  /** What was expired and deleted. */
  public record Result(Set<Long> expiredSnapshotIds, CleanupPlan plan, DeletionCounts counts) {}

  /** Commits the expiry (retrying from fresh metadata on conflicts), then deletes unreachable files. */
  public Result commit() {
    TableMetadata base = ops.refresh();
    if (base == null) {
      throw new IllegalStateException("Cannot expire snapshots of table " + ops.tableName() + ": it does not exist");
    }
    SnapshotProducer.RetryPolicy retry = SnapshotProducer.RetryPolicy.from(base.properties());
    for (int attempt = 0; ; attempt++) {
      checkGcEnabled(base);
      if (cleanExpiredFiles) {
        TableLocations.checkSoleOwner(ops.io(), base, ops.metadataRoot(), ops.tableName(), "expire snapshots of");
      }
      TableMetadata updated = apply(base);
      Set<Long> expired = new TreeSet<>();
      base.snapshots().stream().filter(s -> updated.snapshot(s.snapshotId()) == null)
          .forEach(s -> expired.add(s.snapshotId()));
      if (updated == base) {
        phases.accept("planned 0 snapshots to expire: nothing to do");
        return new Result(expired, null, DeletionCounts.NONE);
      }
      CleanupPlan plan = cleanExpiredFiles ? ExpiredFileCleanup.plan(ops.io(), base, updated) : null;
      if (plan != null) {
        plan.checkInside();
      }
      phases.accept("planned " + expired.size() + " snapshots to expire, "
          + (plan == null ? "no file deletes" : plan.files().size() + " files to delete"));
      try {
        ops.commit(base, updated);
      } catch (CommitFailedException e) {
        if (attempt >= retry.numRetries()) {
          throw e;
        }
        retry.sleep(attempt + 1); // the table's commit.retry.* backoff, as a data commit's
        base = ops.refresh();
        continue;
      } catch (CommitStateUnknownException e) {
        throw new CommitStateUnknownException("Expiring snapshots of table " + ops.tableName()
            + ": the commit outcome is unknown, so no file was deleted; check the table's current metadata and run "
            + "expire_snapshots again", e);
      }
      phases.accept("committed" + (attempt > 0 ? " after " + attempt + " retries" : ""));
      DeletionCounts counts = plan == null ? DeletionCounts.NONE : FileDeleter.delete(ops.io(), plan, threads);
      if (plan != null) {
        phases.accept("deleted " + counts.deleted() + " of " + plan.files().size() + " files ("
            + counts.dataFiles() + " data, " + counts.positionDeleteFiles() + " position delete, "
            + counts.equalityDeleteFiles() + " equality delete, " + counts.manifests() + " manifests, "
            + counts.manifestLists() + " manifest lists, " + counts.statisticsFiles() + " statistics; "
            + counts.failures() + " failed)");
      }
      return new Result(expired, plan, counts);
    }
  }

  private void checkGcEnabled(TableMetadata base) {
    if (!TableProperties.booleanValue(base.properties(), TableProperties.GC_ENABLED)) {
      throw new IllegalArgumentException("Cannot expire snapshots of table " + ops.tableName()
          + ": garbage collection is disabled (table property gc.enabled=false), because deleting files may corrupt "
          + "other tables that share them; set gc.enabled=true if this table owns its files");
    }
  }

  /** The metadata after expiry, or {@code base} itself when nothing changes. */
  public TableMetadata apply(TableMetadata base) {
    long clock = now != null ? now : System.currentTimeMillis();
    long defaultOlderThan = olderThan != null ? olderThan
        : clock - base.propertyAsLong(TableProperties.MAX_SNAPSHOT_AGE_MS, TableProperties.MAX_SNAPSHOT_AGE_MS_DEFAULT);
    int defaultMinToKeep = retainLast != null ? retainLast
        : base.propertyAsInt(TableProperties.MIN_SNAPSHOTS_TO_KEEP, TableProperties.MIN_SNAPSHOTS_TO_KEEP_DEFAULT);
    long defaultMaxRefAge = base.propertyAsLong(MAX_REF_AGE_MS, Long.MAX_VALUE);

    Map<String, SnapshotRef> retainedRefs = new LinkedHashMap<>();
    for (Map.Entry<String, SnapshotRef> e : base.refs().entrySet()) {
      SnapshotRef ref = e.getValue();
      Snapshot head = base.snapshot(ref.snapshotId());
      long maxRefAge = ref.maxRefAgeMs() != null ? ref.maxRefAgeMs() : defaultMaxRefAge;
      if (SnapshotRef.MAIN_BRANCH.equals(e.getKey())
          || (head != null && clock - head.timestampMillis() <= maxRefAge)) {
        retainedRefs.put(e.getKey(), ref);
      }
    }
    Map<Long, List<String>> refsById = new HashMap<>();
    retainedRefs.forEach((name, ref) -> refsById.computeIfAbsent(ref.snapshotId(), id -> new ArrayList<>()).add(name));
    for (long id : explicitIds) {
      if (refsById.containsKey(id)) {
        throw new IllegalArgumentException("Cannot expire snapshot " + id + " of table " + ops.tableName()
            + ": it is the current snapshot of ref(s) " + refsById.get(id)
            + "; drop the tag or branch, or move it to another snapshot first");
      }
    }

    Set<Long> retain = new HashSet<>(refsById.keySet());
    Set<Long> reachable = new HashSet<>();
    for (SnapshotRef ref : retainedRefs.values()) {
      if (ref.isTag()) {
        reachable.add(ref.snapshotId());
        continue;
      }
      long olderThanForRef = ref.maxSnapshotAgeMs() != null ? clock - ref.maxSnapshotAgeMs() : defaultOlderThan;
      int minToKeep = ref.minSnapshotsToKeep() != null ? ref.minSnapshotsToKeep() : defaultMinToKeep;
      int kept = 0;
      boolean keeping = true;
      for (Snapshot s = base.snapshot(ref.snapshotId()); s != null;
          s = s.parentId() == null ? null : base.snapshot(s.parentId())) {
        if (!reachable.add(s.snapshotId()) && !keeping) {
          break;
        }
        if (keeping && (kept < minToKeep || s.timestampMillis() >= olderThanForRef)) {
          retain.add(s.snapshotId());
          kept++;
        } else {
          keeping = false;
        }
      }
    }
    for (Snapshot s : base.snapshots()) {
      if (!reachable.contains(s.snapshotId()) && s.timestampMillis() >= defaultOlderThan) {
        retain.add(s.snapshotId());
      }
    }
    List<Long> toRemove = new ArrayList<>();
    for (Snapshot s : base.snapshots()) {
      if (!retain.contains(s.snapshotId()) || explicitIds.contains(s.snapshotId())) {
        toRemove.add(s.snapshotId());
      }
    }
    List<String> droppedRefs = new ArrayList<>(base.refs().keySet());
    droppedRefs.removeAll(retainedRefs.keySet());
    if (toRemove.isEmpty() && droppedRefs.isEmpty()) {
      return base;
    }
    TableMetadataBuilder builder = TableMetadata.buildFrom(base);
    droppedRefs.forEach(builder::removeRef);
    builder.removeSnapshots(toRemove);
    if (cleanExpiredMetadata) {
      removeUnusedSpecsAndSchemas(base, new HashSet<>(toRemove), builder);
    }
    return builder.build();
  }

  /** Specs no retained manifest uses and schemas no retained snapshot names; never the current ones. */
  private void removeUnusedSpecsAndSchemas(TableMetadata base, Set<Long> removed, TableMetadataBuilder builder) {
    Set<Integer> usedSpecs = new HashSet<>();
    usedSpecs.add(base.defaultSpecId());
    Set<Integer> usedSchemas = new HashSet<>();
    usedSchemas.add(base.currentSchemaId());
    boolean schemaUnknown = false;
    for (Snapshot s : base.snapshots()) {
      if (removed.contains(s.snapshotId())) {
        continue;
      }
      if (s.schemaId() == null) {
        schemaUnknown = true;
      } else {
        usedSchemas.add(s.schemaId());
      }
      for (ManifestFile m : ManifestLists.read(ops.io().newInputFile(s.manifestListLocation()))) {
        usedSpecs.add(m.partitionSpecId());
      }
    }
    List<Integer> unusedSpecs = new ArrayList<>();
    for (PartitionSpec spec : base.specs()) {
      if (!usedSpecs.contains(spec.specId())) {
        unusedSpecs.add(spec.specId());
      }
    }
    builder.removeSpecs(unusedSpecs);
    if (!schemaUnknown) {
      List<Integer> unusedSchemas = new ArrayList<>();
      for (Schema schema : base.schemas()) {
        if (!usedSchemas.contains(schema.schemaId())) {
          unusedSchemas.add(schema.schemaId());
        }
      }
      builder.removeSchemas(unusedSchemas);
    }
  }
}
