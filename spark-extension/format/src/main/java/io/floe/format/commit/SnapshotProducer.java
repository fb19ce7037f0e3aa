package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.ManifestWriter;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotIdGenerator;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Produces one snapshot: files added, files removed. {@link #apply(TableMetadata)} builds the new
 * metadata from a base; {@link #commit()} publishes it, retrying with backoff when another writer
 * won the race. Manifests for added files are written once and reused across attempts.
 */
public abstract class SnapshotProducer {
  private final TableOperations ops;
  private final String commitUuid = UUID.randomUUID().toString();
  private final List<DataFile> addedFiles = new ArrayList<>();
  private final List<String> writtenMetadataFiles = new ArrayList<>();
  private final Map<String, String> extraSummary = new LinkedHashMap<>();
  private List<ManifestFile> newManifests = null;
  private int manifestCount = 0;
  private int attempt = 0;
  private Long snapshotId = null;

  protected SnapshotProducer(TableOperations ops) {
    this.ops = ops;
  }

  protected TableOperations ops() {
    return ops;
  }

  protected FileIO io() {
    return ops.io();
  }

  /** The snapshot operation label: append, overwrite, delete or replace. */
  protected abstract String operation(boolean addsFiles, boolean removesFiles);

  /** Which live data files of the base this commit removes; validates against concurrent changes. */
  protected abstract Set<String> filesToRemove(TableMetadata base, List<ManifestEntry> liveEntries);

  protected void add(DataFile file) {
    if (file.content() != FileContent.DATA) {
      throw new IllegalArgumentException("Cannot append a delete file as data: " + file.path());
    }
    addedFiles.add(file);
  }

  public SnapshotProducer set(String key, String value) {
    extraSummary.put(key, value);
    return this;
  }

  public List<DataFile> addedFiles() {
    return addedFiles;
  }

  public long snapshotId() {
    if (snapshotId == null) {
      snapshotId = SnapshotIdGenerator.newSnapshotId();
    }
    return snapshotId;
  }

  /** Builds the new table metadata on top of {@code base} without publishing it. */
  public TableMetadata apply(TableMetadata base) {
    attempt += 1;
    Snapshot parent = base.currentSnapshot();
    long sequenceNumber = base.lastSequenceNumber() + 1;
    PartitionSpec spec = base.spec();

    List<ManifestFile> parentManifests = parent == null ? List.of() : readManifestList(parent);
    List<ManifestEntry> liveEntries = new ArrayList<>();
    Map<String, List<ManifestEntry>> entriesByManifest = new LinkedHashMap<>();
    for (ManifestFile manifest : parentManifests) {
      if (manifest.content() != ManifestContent.DATA) {
        continue;
      }
      List<ManifestEntry> entries = readEntries(manifest, base);
      entriesByManifest.put(manifest.path(), entries);
      for (ManifestEntry e : entries) {
        if (e.status() != ManifestEntry.Status.DELETED) {
          liveEntries.add(e);
        }
      }
    }
    Set<String> toRemove = filesToRemove(base, liveEntries);

    List<ManifestFile> manifests = new ArrayList<>(newDataManifests(spec, base));
    SummaryCounts removed = new SummaryCounts();
    Set<String> removedPaths = new HashSet<>();
    for (ManifestFile manifest : parentManifests) {
      List<ManifestEntry> entries = entriesByManifest.get(manifest.path());
      boolean touched = entries != null && entries.stream()
          .anyMatch(e -> e.status() != ManifestEntry.Status.DELETED && toRemove.contains(e.file().path()));
      if (touched) {
        manifests.add(rewriteWithDeletes(manifest, entries, toRemove, base, removed, removedPaths));
      } else if (manifest.hasAddedFiles() || manifest.hasExistingFiles()) {
        manifests.add(manifest);
      }
    }
    if (removedPaths.size() != toRemove.size()) {
      Set<String> missing = new HashSet<>(toRemove);
      missing.removeAll(removedPaths);
      throw new ValidationException("Cannot commit to table " + ops.tableName() + ": files to remove are no longer "
          + "in the table (removed by a concurrent commit): " + missing);
    }

    long id = snapshotId();
    String listLocation = ops.metadataFileLocation("snap-" + id + "-" + attempt + "-" + commitUuid + ".avro");
    Long firstRowId = base.formatVersion() >= 3 ? base.nextRowId() : null;
    long addedRows = manifests.stream()
        .filter(m -> m.content() == ManifestContent.DATA && m.firstRowId() == null)
        .mapToLong(m -> m.addedRowsCount() + m.existingRowsCount()).sum();
    ManifestLists.write(base.formatVersion(),
        io().newOutputFile(listLocation), id, parent == null ? null : parent.snapshotId(),
        sequenceNumber, firstRowId, manifests);
    writtenMetadataFiles.add(listLocation);

    Map<String, String> summary = summarize(parent, removed, !addedFiles.isEmpty(), !toRemove.isEmpty());
    Snapshot.Builder snapshot = Snapshot.builder()
        .snapshotId(id)
        .parentId(parent == null ? null : parent.snapshotId())
        .sequenceNumber(sequenceNumber)
        .timestampMillis(Math.max(System.currentTimeMillis(), base.lastUpdatedMillis()))
        .manifestListLocation(listLocation)
        .operation(summary.get("operation"))
        .summary(summary)
        .schemaId(base.currentSchemaId());
    if (firstRowId != null) {
      snapshot.firstRowId(firstRowId).addedRows(addedRows);
    }
    return TableMetadata.buildFrom(base)
        .addSnapshot(snapshot.build())
        .setBranchSnapshot(id, SnapshotRef.MAIN_BRANCH)
        .build();
  }

  private List<ManifestFile> newDataManifests(PartitionSpec spec, TableMetadata base) {
    if (newManifests != null) {
      return newManifests;
    }
    List<ManifestFile> out = new ArrayList<>();
    if (!addedFiles.isEmpty()) {
      Map<Integer, List<DataFile>> bySpec = new LinkedHashMap<>();
      for (DataFile f : addedFiles) {
        bySpec.computeIfAbsent(f.specId(), k -> new ArrayList<>()).add(f);
      }
      for (Map.Entry<Integer, List<DataFile>> group : bySpec.entrySet()) {
        PartitionSpec fileSpec = base.specsById().getOrDefault(group.getKey(), spec);
        ManifestWriter writer = newManifestWriter(base, fileSpec);
        for (DataFile f : group.getValue()) {
          writer.add(f);
        }
        out.add(closeWriter(writer));
      }
    }
    newManifests = out;
    return out;
  }

  private ManifestWriter newManifestWriter(TableMetadata base, PartitionSpec spec) {
    String location = ops.metadataFileLocation(commitUuid + "-m" + manifestCount++ + ".avro");
    writtenMetadataFiles.add(location);
    return ManifestWriter.write(base.formatVersion(), spec, base.schema(), io().newOutputFile(location),
        snapshotId(), ManifestContent.DATA);
  }

  private static ManifestFile closeWriter(ManifestWriter writer) {
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write manifest", e);
    }
    return writer.toManifestFile();
  }

  private ManifestFile rewriteWithDeletes(ManifestFile manifest, List<ManifestEntry> entries, Set<String> toRemove,
      TableMetadata base, SummaryCounts removed, Set<String> removedPaths) {
    PartitionSpec spec = base.specsById().get(manifest.partitionSpecId());
    ManifestWriter writer = newManifestWriter(base, spec);
    for (ManifestEntry e : entries) {
      if (e.status() == ManifestEntry.Status.DELETED) {
        continue;
      }
      if (toRemove.contains(e.file().path())) {
        writer.delete(e);
        removed.add(e.file());
        removedPaths.add(e.file().path());
      } else {
        writer.existing(e);
      }
    }
    return closeWriter(writer);
  }

  private List<ManifestFile> readManifestList(Snapshot snapshot) {
    return ManifestLists.read(io().newInputFile(snapshot.manifestListLocation()));
  }

  private List<ManifestEntry> readEntries(ManifestFile manifest, TableMetadata base) {
    return ManifestReader.read(io().newInputFile(manifest.path()), manifest, base.specsById());
  }

  private Map<String, String> summarize(Snapshot parent, SummaryCounts removed, boolean adds, boolean removes) {
    SummaryCounts added = new SummaryCounts();
    Set<String> partitions = new HashSet<>();
    addedFiles.forEach(f -> {
      added.add(f);
      partitions.add(f.partition().toString() + "@" + f.specId());
    });
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put("operation", operation(adds, removes));
    putIfPositive(summary, "added-data-files", added.files);
    putIfPositive(summary, "deleted-data-files", removed.files);
    putIfPositive(summary, "added-records", added.records);
    putIfPositive(summary, "deleted-records", removed.records);
    putIfPositive(summary, "added-files-size", added.bytes);
    putIfPositive(summary, "removed-files-size", removed.bytes);
    summary.put("changed-partition-count", Integer.toString(partitions.size()));
    Map<String, String> previous = parent == null ? Map.of() : parent.summary();
    summary.put("total-records", Long.toString(total(previous, "total-records") + added.records - removed.records));
    summary.put("total-files-size", Long.toString(total(previous, "total-files-size") + added.bytes - removed.bytes));
    summary.put("total-data-files", Long.toString(total(previous, "total-data-files") + added.files - removed.files));
    summary.put("total-delete-files", Long.toString(total(previous, "total-delete-files")));
    summary.put("total-position-deletes", Long.toString(total(previous, "total-position-deletes")));
    summary.put("total-equality-deletes", Long.toString(total(previous, "total-equality-deletes")));
    summary.put("engine-name", "floe");
    summary.putAll(extraSummary);
    return summary;
  }

  private static long total(Map<String, String> previous, String key) {
    String v = previous.get(key);
    try {
      return v == null ? 0L : Long.parseLong(v);
    } catch (NumberFormatException e) {
      return 0L;
    }
  }

  private static void putIfPositive(Map<String, String> summary, String key, long value) {
    if (value > 0) {
      summary.put(key, Long.toString(value));
    }
  }

  private static final class SummaryCounts {
    long files;
    long records;
    long bytes;

    void add(DataFile f) {
      files += 1;
      records += f.recordCount();
      bytes += f.fileSizeInBytes();
    }
  }

  /** Publishes the snapshot, retrying on lost races per the table's commit.retry.* properties. */
  public Snapshot commit() {
    TableMetadata base = ops.refresh();
    if (base == null) {
      throw new IllegalStateException("Cannot commit to table " + ops.tableName() + ": it does not exist");
    }
    RetryPolicy retry = RetryPolicy.from(base.properties());
    long started = System.currentTimeMillis();
    int failures = 0;
    while (true) {
      TableMetadata updated;
      try {
        updated = apply(base);
        ops.commit(base, updated);
        cleanUpUnused(updated);
        return ops.current().snapshot(snapshotId());
      } catch (CommitFailedException e) {
        failures += 1;
        if (failures > retry.numRetries() || System.currentTimeMillis() - started > retry.totalTimeoutMs()) {
          cleanUpAll();
          throw new CommitFailedException(e.getMessage() + " (gave up after " + failures + " attempts)", e);
        }
        retry.sleep(failures);
        base = ops.refresh();
      } catch (CommitStateUnknownException e) {
        throw e;
      } catch (RuntimeException e) {
        cleanUpAll();
        throw e;
      }
    }
  }

  /** After success: remove manifest lists from lost attempts (never the committed one). */
  private void cleanUpUnused(TableMetadata committed) {
    Set<String> keep = new HashSet<>();
    Snapshot snap = committed.currentSnapshot();
    if (snap != null) {
      keep.add(snap.manifestListLocation());
      for (ManifestFile m : readManifestList(snap)) {
        keep.add(m.path());
      }
    }
    for (String f : writtenMetadataFiles) {
      if (!keep.contains(f)) {
        deleteQuietly(f);
      }
    }
  }

  /** After a known failure: remove every metadata file this producer wrote. Data files are the caller's. */
  private void cleanUpAll() {
    writtenMetadataFiles.forEach(this::deleteQuietly);
  }

  private void deleteQuietly(String location) {
    try {
      io().deleteFile(location);
    } catch (IOException | RuntimeException ignored) {
      // best effort
    }
  }

  /** Backoff between attempts from the commit.retry.* table properties. */
  record RetryPolicy(int numRetries, long minWaitMs, long maxWaitMs, long totalTimeoutMs) {
    static RetryPolicy from(Map<String, String> props) {
      return new RetryPolicy(
          intProp(props, "commit.retry.num-retries", 4),
          longProp(props, "commit.retry.min-wait-ms", 100),
          longProp(props, "commit.retry.max-wait-ms", 60_000),
          longProp(props, "commit.retry.total-timeout-ms", 1_800_000));
    }

    void sleep(int failures) {
      long wait = Math.min(maxWaitMs, minWaitMs * (1L << Math.min(failures - 1, 20)));
      long jitter = (long) (Math.random() * wait * 0.1);
      try {
        Thread.sleep(wait + jitter);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CommitFailedException("Interrupted while retrying a commit", e);
      }
    }

    private static int intProp(Map<String, String> props, String key, int dflt) {
      String v = props.get(key);
      return v == null ? dflt : Integer.parseInt(v.trim());
    }

    private static long longProp(Map<String, String> props, String key, long dflt) {
      String v = props.get(key);
      return v == null ? dflt : Long.parseLong(v.trim());
    }
  }
}
