package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.ManifestWriter;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotIdGenerator;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Rewrites the current snapshot's data manifests (optionally only those of one partition spec) so
 * that each covers a narrow partition range: live entries are carried over as EXISTING (snapshot id,
 * data and file sequence numbers kept), ordered by partition and cut into manifests of about
 * {@value #TARGET_SIZE_BYTES} bytes. Delete manifests are kept as they are. The new snapshot has
 * operation {@code replace} and the same data. When another writer commits first and the replaced
 * manifests are still current, the written manifests are reused; otherwise the rewrite is planned
 * again from the newest metadata. Specs whose manifests are already clustered are left alone; when
 * nothing needs rewriting, no snapshot is committed.
 */
public final class RewriteManifests {
  public static final String TARGET_SIZE_BYTES = TableProperties.MANIFEST_TARGET_SIZE_BYTES;
  public static final long TARGET_SIZE_BYTES_DEFAULT = TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT;

  private final TableOperations ops;
  private final String commitUuid = UUID.randomUUID().toString();
  private final long snapshotId = SnapshotIdGenerator.newSnapshotId();
  private final List<String> writtenFiles = new ArrayList<>();
  private Integer specId = null;
  private int manifestCount = 0;

  public RewriteManifests(TableOperations ops) {
    this.ops = ops;
  }

  /** Rewrites only the data manifests of this partition spec (null: every spec). */
  public RewriteManifests specId(Integer id) {
    this.specId = id;
    return this;
  }

  /** What was replaced and written, and the committed snapshot (null when nothing needed rewriting). */
  public record Result(List<ManifestFile> rewrittenManifests, List<ManifestFile> addedManifests, Snapshot snapshot) {
    static final Result NOTHING = new Result(List.of(), List.of(), null);
  }

  /** The manifests to replace, the manifests replacing them, and how many entries were carried over. */
  private record Plan(List<ManifestFile> replaced, List<ManifestFile> added, long entries) {
    Set<String> replacedPaths() {
      return replaced.stream().map(ManifestFile::path).collect(Collectors.toSet());
    }
  }

  /** Plans, writes and commits the rewrite, retrying on lost races per the commit.retry.* properties. */
  public Result commit() {
    TableMetadata base = ops.refresh();
    if (base == null) {
      throw new IllegalStateException("Cannot rewrite manifests of table " + ops.tableName() + ": it does not exist");
    }
    if (specId != null && !base.specsById().containsKey(specId)) {
      throw new IllegalArgumentException("Cannot rewrite manifests of table " + ops.tableName() + ": unknown "
          + "partition spec id " + specId + " (the table's spec ids are " + base.specsById().keySet() + ")");
    }
    return InFlightCommit.around(ops, commitUuid, () -> commitWithRetries(base));
  }

  private Result commitWithRetries(TableMetadata start) {
    TableMetadata base = start;
    SnapshotProducer.RetryPolicy retry = SnapshotProducer.RetryPolicy.from(base.properties());
    long started = System.currentTimeMillis();
    Plan plan = null;
    int attempt = 0;
    while (true) {
      attempt += 1;
      String listLocation = null;
      try {
        Snapshot parent = base.currentSnapshot();
        List<ManifestFile> current = parent == null ? List.of() : manifests(parent);
        Set<String> currentPaths = current.stream().map(ManifestFile::path).collect(Collectors.toSet());
        if (plan == null || !currentPaths.containsAll(plan.replacedPaths())) {
          deleteWritten();
          plan = plan(base, current);
        }
        if (plan.replaced().isEmpty()) {
          deleteWritten();
          return Result.NOTHING;
        }
        listLocation = ops.metadataFileLocation("snap-" + snapshotId + "-" + attempt + "-" + commitUuid + ".avro");
        TableMetadata updated = apply(base, parent, current, plan, listLocation);
        List<String> added = new ArrayList<>();
        plan.added().forEach(m -> added.add(m.path()));
        added.add(listLocation);
        InFlightCommit.checkAddedFilesExist(ops.io(), ops.tableName(), added);
        ops.commit(base, updated);
        return new Result(plan.replaced(), plan.added(), ops.current().snapshot(snapshotId));
      } catch (CommitFailedException e) {
        deleteQuietly(listLocation);
        if (attempt > retry.numRetries() || System.currentTimeMillis() - started > retry.totalTimeoutMs()) {
          deleteWritten();
          throw new CommitFailedException(e.getMessage() + " (gave up after " + attempt + " attempts)", e);
        }
        retry.sleep(attempt);
        base = ops.refresh();
      } catch (CommitStateUnknownException e) {
        throw e;
      } catch (RuntimeException e) {
        deleteQuietly(listLocation);
        deleteWritten();
        throw e;
      }
    }
  }

  /** Reads the matching data manifests and writes the clustered replacements of the specs that need it. */
  private Plan plan(TableMetadata base, List<ManifestFile> current) {
    Map<Integer, List<ManifestFile>> bySpec = new TreeMap<>();
    for (ManifestFile m : current) {
      if (m.content() == ManifestContent.DATA && (specId == null || m.partitionSpecId() == specId)) {
        bySpec.computeIfAbsent(m.partitionSpecId(), k -> new ArrayList<>()).add(m);
      }
    }
    long targetBytes = targetBytes(base);
    List<ManifestFile> replaced = new ArrayList<>();
    List<ManifestFile> added = new ArrayList<>();
    long entries = 0;
    for (Map.Entry<Integer, List<ManifestFile>> spec : bySpec.entrySet()) {
      Map<String, List<ManifestEntry<DataFile>>> live = new LinkedHashMap<>();
      Set<String> withDeletes = new HashSet<>();
      long bytes = 0;
      for (ManifestFile m : spec.getValue()) {
        bytes += m.length();
        List<ManifestEntry<DataFile>> all = ManifestReader.readData(io().newInputFile(m.path()), m, base.specsById());
        live.put(m.path(), all.stream().filter(ManifestEntry::isLive).collect(Collectors.toList()));
        if (all.stream().anyMatch(e -> !e.isLive())) {
          withDeletes.add(m.path());
        }
      }
      List<ManifestEntry<DataFile>> sorted = live.values().stream().flatMap(List::stream)
          .sorted(ManifestClustering.ORDER).collect(Collectors.toList());
      int groups = ManifestClustering.manifestCount(bytes, targetBytes, sorted.size());
      if (ManifestClustering.isClustered(live, withDeletes, groups)) {
        continue;
      }
      PartitionSpec partitionSpec = base.specsById().get(spec.getKey());
      for (List<ManifestEntry<DataFile>> group : ManifestClustering.split(sorted, groups)) {
        added.add(write(base, partitionSpec, group));
      }
      replaced.addAll(spec.getValue());
      entries += sorted.size();
    }
    return new Plan(replaced, added, entries);
  }

  private ManifestFile write(TableMetadata base, PartitionSpec spec, List<ManifestEntry<DataFile>> entries) {
    String location = ops.metadataFileLocation(commitUuid + "-m" + manifestCount++ + ".avro");
    writtenFiles.add(location);
    ManifestWriter writer = ManifestWriter.write(base.formatVersion(), spec, base.schema(),
        io().newOutputFile(location), snapshotId, ManifestContent.DATA);
    try (writer) {
      entries.forEach(writer::existing);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write manifest " + location + " of table " + ops.tableName(), e);
    }
    return writer.toManifestFile();
  }

  /** The new metadata: the written manifests, then every manifest not replaced, as a replace snapshot. */
  private TableMetadata apply(TableMetadata base, Snapshot parent, List<ManifestFile> current, Plan plan,
      String listLocation) {
    Set<String> replacedPaths = plan.replacedPaths();
    List<ManifestFile> manifests = new ArrayList<>(plan.added());
    current.stream().filter(m -> !replacedPaths.contains(m.path())).forEach(manifests::add);
    long sequenceNumber = base.lastSequenceNumber() + 1;
    Long firstRowId = base.formatVersion() >= 3 ? base.nextRowId() : null;
    ManifestLists.write(base.formatVersion(), io().newOutputFile(listLocation), snapshotId, parent.snapshotId(),
        sequenceNumber, firstRowId, manifests);
    Snapshot.Builder snapshot = Snapshot.builder()
        .snapshotId(snapshotId)
        .parentId(parent.snapshotId())
        .sequenceNumber(sequenceNumber)
        .timestampMillis(Math.max(System.currentTimeMillis(), base.lastUpdatedMillis()))
        .manifestListLocation(listLocation)
        .operation("replace")
        .summary(summary(parent, plan, manifests.size() - plan.added().size()))
        .schemaId(base.currentSchemaId());
    if (firstRowId != null) {
      snapshot.firstRowId(firstRowId).addedRows(manifests.stream()
          .filter(m -> m.content() == ManifestContent.DATA && m.firstRowId() == null)
          .mapToLong(m -> m.addedRowsCount() + m.existingRowsCount()).sum());
    }
    return TableMetadata.buildFrom(base)
        .addSnapshot(snapshot.build())
        .setBranchSnapshot(snapshotId, SnapshotRef.MAIN_BRANCH)
        .build();
  }

  private static Map<String, String> summary(Snapshot parent, Plan plan, int kept) {
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put("operation", "replace");
    summary.put("manifests-created", Integer.toString(plan.added().size()));
    summary.put("manifests-kept", Integer.toString(kept));
    summary.put("manifests-replaced", Integer.toString(plan.replaced().size()));
    summary.put("entries-processed", Long.toString(plan.entries()));
    summary.put("changed-partition-count", "0");
    parent.summary().forEach((k, v) -> {
      if (k.startsWith("total-")) {
        summary.put(k, v);
      }
    });
    summary.put("engine-name", "floe");
    return summary;
  }

  private List<ManifestFile> manifests(Snapshot snapshot) {
    if (snapshot.manifestListLocation() == null) {
      throw new IllegalArgumentException("Cannot rewrite manifests of table " + ops.tableName() + ": snapshot "
          + snapshot.snapshotId() + " lists its manifests inline (format v1 without a manifest list); "
          + "commit a write with a current engine first");
    }
    return ManifestLists.read(io().newInputFile(snapshot.manifestListLocation()));
  }

  private long targetBytes(TableMetadata base) {
    return targetBytes(base, ops.tableName());
  }

  /** The table's {@value #TARGET_SIZE_BYTES}, or the default; shared with the merge on append. */
  static long targetBytes(TableMetadata base, String tableName) {
    String value = base.properties().get(TARGET_SIZE_BYTES);
    if (value == null) {
      return TARGET_SIZE_BYTES_DEFAULT;
    }
    try {
      long bytes = Long.parseLong(value.trim());
      if (bytes > 0) {
        return bytes;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("Cannot write manifests of table " + tableName + ": table property "
        + TARGET_SIZE_BYTES + " is '" + value + "', expected a positive number of bytes");
  }

  private FileIO io() {
    return ops.io();
  }

  private void deleteWritten() {
    writtenFiles.forEach(this::deleteQuietly);
    writtenFiles.clear();
  }

  private void deleteQuietly(String location) {
    if (location == null) {
      return;
    }
    try {
      io().deleteFile(location);
    } catch (IOException | RuntimeException ignored) {
      // best effort: an unreferenced metadata file is an orphan, never a correctness problem
    }
  }
}
