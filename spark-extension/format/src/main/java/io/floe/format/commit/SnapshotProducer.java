package io.floe.format.commit;

import io.floe.format.expr.Expression;
import io.floe.format.io.FileIO;
import io.floe.format.io.Locations;
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
import io.floe.format.manifest.ManifestWriter;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotIdGenerator;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
  private final List<DeleteFile> addedDeleteFiles = new ArrayList<>();
  private final Map<String, DeleteFile> deleteFilesToRemove = new LinkedHashMap<>();
  private final Set<String> requiredDataFiles = new LinkedHashSet<>();
  private boolean validateHistory = false;
  private Long startingSnapshotId = null;
  private Expression conflictDetectionFilter = null;
  private boolean checkConflictingData = false;
  private boolean checkConflictingDeletes = false;
  private boolean checkDuplicateAdds = false;
  private boolean checkAddedFilesExist = false;
  private List<ManifestFile> newDeleteManifests = null;
  private final List<String> writtenMetadataFiles = new ArrayList<>();
  private final Map<String, String> extraSummary = new LinkedHashMap<>();
  private List<ManifestFile> newManifests = null;
  private final Map<List<String>, ManifestFile> mergedManifests = new HashMap<>();
  private Set<String> lastListedManifests = Set.of();
  private int manifestCount = 0;
  private int attempt = 0;
  private Long snapshotId = null;
  private MetadataAmendment amendment = null;
  private String targetBranch = SnapshotRef.MAIN_BRANCH;
  private boolean stageOnly = false;

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
  protected abstract String operation(boolean addsData, boolean removesData, boolean addsDeletes);

  /** Whether a commit that changes nothing is skipped (no snapshot) rather than committed empty. */
  protected boolean skipsEmptyCommit() {
    return true;
  }

  /**
   * The data sequence number the added data files carry, or null (the default) for this commit's
   * own: compaction keeps the sequence number of the snapshot it read, so that equality deletes
   * committed after that snapshot still apply to the rewritten rows.
   */
  protected Long addedDataSequenceNumber() {
    return null;
  }

  /** Which live data files of the base this commit removes; validates against concurrent changes. */
  protected abstract Set<String> filesToRemove(TableMetadata base, List<ManifestEntry<DataFile>> liveEntries);

  /**
   * Whether this commit may remove live data files of the base. When it may not, and it requires no
   * data file to be live, {@link #apply} reads none of the base's data manifests and never calls
   * {@link #filesToRemove}: an append costs the same on a table of any age.
   */
  protected boolean mayRemoveDataFiles() {
    return true;
  }

  /**
   * Whether this commit bin-packs small data manifests into larger ones (per the table's
   * {@code commit.manifest-merge.enabled} and related properties), as an append does.
   */
  protected boolean mergesManifests() {
    return false;
  }

  protected void add(DataFile file) {
    addedFiles.add(file);
  }

  /** A delete file (position deletes or a deletion vector) that this commit adds. */
  protected void addDelete(DeleteFile file) {
    addedDeleteFiles.add(file);
  }

  /** A live delete file that this commit removes (replaced by a merged one). */
  protected void removeDelete(DeleteFile file) {
    deleteFilesToRemove.put(ContentFiles.deleteFileKey(file), file);
  }

  /** Data files that must still be live when this commit lands (those it adds deletes for). */
  protected void requireDataFiles(Collection<String> paths) {
    requiredDataFiles.addAll(paths);
  }

  /**
   * Validates against the commits after {@code snapshotId}, the snapshot the operation read (null
   * when it read an empty table), with the checks enabled below.
   */
  public SnapshotProducer validateFromSnapshot(Long snapshotId) {
    this.validateHistory = true;
    this.startingSnapshotId = snapshotId;
    return this;
  }

  /** The rows the operation read or changes, on table columns; concurrent data outside it never conflicts. */
  public SnapshotProducer conflictDetectionFilter(Expression filter) {
    this.conflictDetectionFilter = filter;
    return this;
  }

  /** Serializable isolation: fail when a concurrent commit added data that may match the filter. */
  public SnapshotProducer validateNoConflictingDataFiles() {
    this.checkConflictingData = true;
    return this;
  }

  /**
   * Just before publishing, fail (leaving the table as it was) when a data or delete file this
   * commit adds no longer exists: deleted while the write was in flight, e.g. by orphan removal
   * with a short {@code older_than}. Publishing it would make every read of the table fail. The
   * manifests and manifest list the commit wrote itself are always checked.
   */
  public SnapshotProducer validateAddedFilesExist() {
    this.checkAddedFilesExist = true;
    return this;
  }

  /**
   * For callers that publish {@link #apply}'s result themselves (a staged CREATE or REPLACE TABLE AS
   * SELECT): throws {@link ValidationException} naming a data or delete file this producer adds
   * that no longer exists.
   */
  public void checkAddedFilesExist() {
    List<String> added = new ArrayList<>();
    addedFiles.forEach(f -> added.add(f.path()));
    addedDeleteFiles.forEach(f -> added.add(f.path()));
    InFlightCommit.checkAddedFilesExist(io(), ops.tableName(), added);
  }

  /**
   * For callers that publish {@link #apply}'s result themselves (a staged REPLACE TABLE AS SELECT,
   * which re-applies this producer to the refreshed table after a lost race): once {@code committed}
   * is published, removes the manifest lists and manifests that lost attempts wrote and
   * {@code committed} does not use. Never call it after an unknown outcome.
   */
  public void cleanUpUncommitted(TableMetadata committed) {
    cleanUpUnused(committed);
  }

  /**
   * For such callers after a known failure (nothing of this producer was published): removes every
   * metadata file it wrote. Data files are the caller's.
   */
  public void cleanUpAfterFailure() {
    cleanUpAll();
  }

  /**
   * Fail when a concurrent commit added a data file at a path this commit adds too (two
   * {@code add_files} calls over one folder): the table would list the file twice and read its rows
   * twice. Needs {@link #validateFromSnapshot}.
   */
  public SnapshotProducer validateNoDuplicateAdds() {
    this.checkDuplicateAdds = true;
    return this;
  }

  /** Fail when a concurrent commit added deletes for a data file this commit removes or deletes from. */
  public SnapshotProducer validateNoConflictingDeleteFiles() {
    this.checkConflictingDeletes = true;
    return this;
  }

  /** A further change committed with the snapshot, re-applied at every attempt (see {@link MetadataAmendment}). */
  public SnapshotProducer amendMetadata(MetadataAmendment change) {
    this.amendment = change;
    return this;
  }

  /**
   * Commits to branch {@code branch} instead of main: the new snapshot's parent is the branch's head
   * (main's current snapshot when the branch does not exist yet, which the commit then creates), and
   * conflict validation walks the branch's history. A tag of that name is an error.
   */
  public SnapshotProducer toBranch(String branch) {
    if (branch == null || branch.isEmpty()) {
      throw new IllegalArgumentException("Invalid branch name: null or empty");
    }
    this.targetBranch = branch;
    return this;
  }

  /**
   * Adds the snapshot without moving any branch (write-audit-publish with {@code wap.id}): its parent
   * is main's current snapshot, and {@link Cherrypick} publishes it later.
   */
  public SnapshotProducer stageOnly() {
    this.stageOnly = true;
    return this;
  }

  /** The branch this commit moves, or null when it only stages its snapshot. */
  public String targetBranch() {
    return stageOnly ? null : targetBranch;
  }

  public SnapshotProducer set(String key, String value) {
    extraSummary.put(key, value);
    return this;
  }

  /** The data files this commit adds, by canonical location ({@code /t/x} and {@code file:/t/x} alike). */
  private Set<String> addedPaths() {
    Set<String> paths = new HashSet<>();
    addedFiles.forEach(f -> paths.add(canonicalOrSelf(f.path())));
    return paths;
  }

  static String canonicalOrSelf(String path) {
    String canonical = Locations.canonical(path);
    return canonical == null ? path : canonical;
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
    Snapshot parent = ManageRefs.branchHead(base, targetBranch, ops.tableName());
    long sequenceNumber = base.lastSequenceNumber() + 1;
    PartitionSpec spec = base.spec();

    List<ManifestFile> parentManifests = parent == null ? List.of() : readManifestList(parent);
    List<ManifestEntry<DataFile>> liveEntries = new ArrayList<>();
    Map<String, List<? extends ManifestEntry<?>>> entriesByManifest = new LinkedHashMap<>();
    boolean readDataManifests = readsLiveDataFiles();
    for (ManifestFile manifest : parentManifests) {
      if (manifest.content() != ManifestContent.DATA || !readDataManifests) {
        continue;
      }
      List<ManifestEntry<DataFile>> entries = ManifestReader.readData(io().newInputFile(manifest.path()), manifest,
          base.specsById());
      entriesByManifest.put(manifest.path(), entries);
      for (ManifestEntry<DataFile> e : entries) {
        if (e.status() != ManifestEntry.Status.DELETED) {
          liveEntries.add(e);
        }
      }
    }
    Set<String> toRemove = readDataManifests ? filesToRemove(base, liveEntries) : Set.of();
    Map<String, DataFile> touched = touchedDataFiles(liveEntries, toRemove);
    if (validateHistory) {
      new ConflictValidation(ops.tableName(), io(), startingSnapshotId, conflictDetectionFilter,
          checkConflictingData, checkConflictingDeletes).onBranch(targetBranch)
          .rejectingAddsOf(checkDuplicateAdds ? addedPaths() : Set.of()).validate(base, touched);
    }

    // delete files to drop: the ones replaced explicitly, and those of removed data files
    Map<String, DeleteFile> deletesToDrop = new LinkedHashMap<>(deleteFilesToRemove);
    Set<String> newDvTargets = new HashSet<>();
    for (DeleteFile f : addedDeleteFiles) {
      if (ContentFiles.isDeletionVector(f)) {
        if (!newDvTargets.add(ContentFiles.referencedDataFile(f))) {
          throw new IllegalArgumentException("Cannot commit to table " + ops.tableName() + ": two new deletion "
              + "vectors for data file " + f.referencedDataFile() + " (merge them into one)");
        }
      } else if (f.content() == FileContent.POSITION_DELETES && base.formatVersion() >= 3) {
        throw new IllegalArgumentException("Cannot add position delete file " + f.path() + " to format v3 table "
            + ops.tableName() + ": v3 tables take deletion vectors");
      }
    }
    boolean readDeleteManifests = !deleteFilesToRemove.isEmpty() || !toRemove.isEmpty() || !newDvTargets.isEmpty();
    List<DeleteFile> liveDvsOfTargets = new ArrayList<>();
    for (ManifestFile manifest : parentManifests) {
      if (manifest.content() != ManifestContent.DELETES || !readDeleteManifests) {
        continue;
      }
      List<ManifestEntry<DeleteFile>> entries = ManifestReader.readDeletes(io().newInputFile(manifest.path()),
          manifest, base.specsById());
      entriesByManifest.put(manifest.path(), entries);
      for (ManifestEntry<DeleteFile> e : entries) {
        String referenced = ContentFiles.referencedDataFile(e.file());
        if (e.status() != ManifestEntry.Status.DELETED && referenced != null && toRemove.contains(referenced)) {
          deletesToDrop.put(ContentFiles.deleteFileKey(e.file()), e.file());
        }
        if (e.status() != ManifestEntry.Status.DELETED && ContentFiles.isDeletionVector(e.file())
            && newDvTargets.contains(referenced)) {
          liveDvsOfTargets.add(e.file());
        }
      }
    }
    for (DeleteFile dv : liveDvsOfTargets) {
      if (!deletesToDrop.containsKey(ContentFiles.deleteFileKey(dv))) {
        throw new ValidationException("Cannot commit to table " + ops.tableName() + ": data file "
            + dv.referencedDataFile() + " already has deletion vector " + ContentFiles.deleteFileKey(dv)
            + ", which this commit neither merges nor replaces (a data file has at most one deletion vector)");
      }
    }

    List<ManifestFile> manifests = new ArrayList<>(newDataManifests(spec, base));
    manifests.addAll(newDeleteManifests(spec, base));
    SummaryCounts removed = new SummaryCounts();
    Set<String> removedPaths = new HashSet<>();
    Set<String> removedDeleteKeys = new HashSet<>();
    for (ManifestFile manifest : parentManifests) {
      List<? extends ManifestEntry<?>> entries = entriesByManifest.get(manifest.path());
      boolean deletes = manifest.content() == ManifestContent.DELETES;
      boolean touchedManifest = entries != null && entries.stream()
          .anyMatch(e -> e.status() != ManifestEntry.Status.DELETED && (deletes
              ? deletesToDrop.containsKey(ContentFiles.fileKey(e.file()))
              : toRemove.contains(e.file().path())));
      if (touchedManifest) {
        manifests.add(rewriteWithDeletes(manifest, entries, base, removed, deletes ? removedDeleteKeys : removedPaths,
            e -> deletes ? deletesToDrop.containsKey(ContentFiles.fileKey(e.file()))
                : toRemove.contains(e.file().path())));
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
    if (!removedDeleteKeys.containsAll(deleteFilesToRemove.keySet())) {
      Set<String> missing = new HashSet<>(deleteFilesToRemove.keySet());
      missing.removeAll(removedDeleteKeys);
      throw new ValidationException("Cannot commit to table " + ops.tableName() + ": delete files to replace are no "
          + "longer in the table (replaced or removed by a concurrent commit): " + missing);
    }
    ManifestMerger merger = mergesManifests() ? ManifestMerger.from(base, ops.tableName()) : null;
    if (merger != null) {
      manifests = merger.merge(manifests, bin -> mergeBin(bin, base));
    }
    lastApplyChangedNothing = addedFiles.isEmpty() && addedDeleteFiles.isEmpty() && toRemove.isEmpty()
        && deletesToDrop.isEmpty();

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
    lastListedManifests = new HashSet<>();
    manifests.forEach(m -> lastListedManifests.add(m.path()));

    Map<String, String> summary = summarize(parent, removed, !toRemove.isEmpty());
    if (merger != null) {
      summarizeManifests(summary, parentManifests, manifests);
    }
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
    Snapshot built = snapshot.build();
    TableMetadataBuilder builder = TableMetadata.buildFrom(base).addSnapshot(built);
    if (!stageOnly) {
      builder.setBranchSnapshot(id, targetBranch);
    }
    TableMetadata updated = builder.build();
    // index lists describe main: a snapshot on another branch, or staged, leaves them as they are
    boolean onMain = !stageOnly && SnapshotRef.MAIN_BRANCH.equals(targetBranch);
    return amendment == null || !onMain ? updated : amendment.amend(base, updated, built);
  }

  private boolean lastApplyChangedNothing = false;

  /** Whether apply must read the base's live data entries: to find removals or files required live. */
  private boolean readsLiveDataFiles() {
    return mayRemoveDataFiles() || !requiredDataFiles.isEmpty()
        || addedDeleteFiles.stream().anyMatch(f -> ContentFiles.referencedDataFile(f) != null);
  }

  /** The merged manifest of {@code bin}, written once and reused by later attempts. */
  private ManifestFile mergeBin(List<ManifestFile> bin, TableMetadata base) {
    List<String> key = bin.stream().map(ManifestFile::path).toList();
    ManifestFile merged = mergedManifests.get(key);
    if (merged == null) {
      ManifestWriter writer = newManifestWriter(base, base.specsById().get(bin.get(0).partitionSpecId()),
          ManifestContent.DATA);
      ManifestMerger.writeEntries(bin, snapshotId(), writer,
          m -> ManifestReader.readData(io().newInputFile(m.path()), m, base.specsById()));
      merged = closeWriter(writer);
      mergedManifests.put(key, merged);
    }
    return merged;
  }

  /** Iceberg's manifest counts: written by this commit, carried over from the parent, and dropped. */
  private void summarizeManifests(Map<String, String> summary, List<ManifestFile> parentManifests,
      List<ManifestFile> manifests) {
    Set<String> listed = new HashSet<>();
    manifests.forEach(m -> listed.add(m.path()));
    long kept = parentManifests.stream().filter(m -> listed.contains(m.path())).count();
    long replaced = parentManifests.stream().filter(m -> !listed.contains(m.path())
        && (m.hasAddedFiles() || m.hasExistingFiles())).count();
    summary.put("manifests-created", Long.toString(manifests.size() - kept));
    summary.put("manifests-kept", Long.toString(kept));
    summary.put("manifests-replaced", Long.toString(replaced));
  }

  /**
   * The live data files this commit removes or must find live (those it adds deletes for, named
   * or referenced by the delete files), by path.
   */
  private Map<String, DataFile> touchedDataFiles(List<ManifestEntry<DataFile>> liveEntries, Set<String> toRemove) {
    Set<String> required = new HashSet<>(requiredDataFiles);
    for (DeleteFile f : addedDeleteFiles) {
      String referenced = ContentFiles.referencedDataFile(f);
      if (referenced != null) {
        required.add(referenced);
      }
    }
    Map<String, DataFile> touched = new HashMap<>();
    for (ManifestEntry<DataFile> e : liveEntries) {
      String path = e.file().path();
      if (toRemove.contains(path) || required.contains(path)) {
        touched.put(path, e.file());
      }
    }
    if (touched.size() < required.size() + toRemove.size()) {
      List<String> missing = required.stream().filter(p -> !touched.containsKey(p)).limit(5).toList();
      if (!missing.isEmpty()) {
        throw new ValidationException("Cannot commit to table " + ops.tableName() + ": data files this operation "
            + "deletes rows from are no longer in the table (removed by a concurrent commit): " + missing);
      }
    }
    return touched;
  }

  private List<ManifestFile> newDeleteManifests(PartitionSpec spec, TableMetadata base) {
    if (newDeleteManifests == null) {
      newDeleteManifests = writeNewManifests(addedDeleteFiles, spec, base, ManifestContent.DELETES);
    }
    return newDeleteManifests;
  }

  private List<ManifestFile> newDataManifests(PartitionSpec spec, TableMetadata base) {
    if (newManifests == null) {
      newManifests = writeNewManifests(addedFiles, spec, base, ManifestContent.DATA);
    }
    return newManifests;
  }

  /** One manifest per partition spec of the new files. */
  private List<ManifestFile> writeNewManifests(List<? extends ContentFile> files, PartitionSpec spec,
      TableMetadata base, ManifestContent content) {
    List<ManifestFile> out = new ArrayList<>();
    Map<Integer, List<ContentFile>> bySpec = new LinkedHashMap<>();
    for (ContentFile f : files) {
      bySpec.computeIfAbsent(f.specId(), k -> new ArrayList<>()).add(f);
    }
    for (Map.Entry<Integer, List<ContentFile>> group : bySpec.entrySet()) {
      PartitionSpec fileSpec = base.specsById().getOrDefault(group.getKey(), spec);
      ManifestWriter writer = newManifestWriter(base, fileSpec, content);
      Long dataSequenceNumber = content == ManifestContent.DATA ? addedDataSequenceNumber() : null;
      for (ContentFile f : group.getValue()) {
        if (dataSequenceNumber != null) {
          writer.add(f, dataSequenceNumber);
        } else {
          writer.add(f);
        }
      }
      out.add(closeWriter(writer));
    }
    return out;
  }

  private ManifestWriter newManifestWriter(TableMetadata base, PartitionSpec spec, ManifestContent content) {
    String location = ops.metadataFileLocation(commitUuid + "-m" + manifestCount++ + ".avro");
    writtenMetadataFiles.add(location);
    return ManifestWriter.write(base.formatVersion(), spec, base.schema(), io().newOutputFile(location),
        snapshotId(), content);
  }

  private static ManifestFile closeWriter(ManifestWriter writer) {
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write manifest", e);
    }
    return writer.toManifestFile();
  }

  private ManifestFile rewriteWithDeletes(ManifestFile manifest, List<? extends ManifestEntry<?>> entries,
      TableMetadata base, SummaryCounts removed, Set<String> removedKeys,
      java.util.function.Predicate<ManifestEntry<?>> remove) {
    PartitionSpec spec = base.specsById().get(manifest.partitionSpecId());
    ManifestWriter writer = newManifestWriter(base, spec, manifest.content());
    for (ManifestEntry<?> e : entries) {
      if (e.status() == ManifestEntry.Status.DELETED) {
        continue;
      }
      if (remove.test(e)) {
        writer.delete(e);
        removed.add(e.file());
        removedKeys.add(ContentFiles.fileKey(e.file()));
      } else {
        writer.existing(e);
      }
    }
    return closeWriter(writer);
  }

  private List<ManifestFile> readManifestList(Snapshot snapshot) {
    return ManifestLists.read(io().newInputFile(snapshot.manifestListLocation()));
  }

  private Map<String, String> summarize(Snapshot parent, SummaryCounts removed, boolean removesData) {
    SummaryCounts added = new SummaryCounts();
    Set<String> partitions = new HashSet<>();
    addedFiles.forEach(f -> {
      added.add(f);
      partitions.add(f.partition().toString() + "@" + f.specId());
    });
    addedDeleteFiles.forEach(f -> {
      added.add(f);
      partitions.add(f.partition().toString() + "@" + f.specId());
    });
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put("operation", operation(!addedFiles.isEmpty(), removesData, !addedDeleteFiles.isEmpty()));
    putIfPositive(summary, "added-data-files", added.files);
    putIfPositive(summary, "deleted-data-files", removed.files);
    putIfPositive(summary, "added-records", added.records);
    putIfPositive(summary, "deleted-records", removed.records);
    putIfPositive(summary, "added-files-size", added.bytes + added.deleteBytes);
    putIfPositive(summary, "removed-files-size", removed.bytes + removed.deleteBytes);
    putIfPositive(summary, "added-delete-files", added.deleteFiles);
    putIfPositive(summary, "added-position-delete-files", added.positionDeleteFiles);
    putIfPositive(summary, "added-dvs", added.dvs);
    putIfPositive(summary, "added-position-deletes", added.positionDeletes);
    putIfPositive(summary, "added-equality-deletes", added.equalityDeletes);
    putIfPositive(summary, "removed-delete-files", removed.deleteFiles);
    putIfPositive(summary, "removed-position-delete-files", removed.positionDeleteFiles);
    putIfPositive(summary, "removed-dvs", removed.dvs);
    putIfPositive(summary, "removed-position-deletes", removed.positionDeletes);
    putIfPositive(summary, "removed-equality-deletes", removed.equalityDeletes);
    summary.put("changed-partition-count", Integer.toString(partitions.size()));
    Map<String, String> previous = parent == null ? Map.of() : parent.summary();
    summary.put("total-records", Long.toString(total(previous, "total-records") + added.records - removed.records));
    summary.put("total-files-size", Long.toString(total(previous, "total-files-size")
        + added.bytes + added.deleteBytes - removed.bytes - removed.deleteBytes));
    summary.put("total-data-files", Long.toString(total(previous, "total-data-files") + added.files - removed.files));
    summary.put("total-delete-files", Long.toString(total(previous, "total-delete-files")
        + added.deleteFiles - removed.deleteFiles));
    summary.put("total-position-deletes", Long.toString(total(previous, "total-position-deletes")
        + added.positionDeletes - removed.positionDeletes));
    summary.put("total-equality-deletes", Long.toString(total(previous, "total-equality-deletes")
        + added.equalityDeletes - removed.equalityDeletes));
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

  /** Counts for the snapshot summary; a deletion vector's size is its blob's, not its Puffin file's. */
  private static final class SummaryCounts {
    long files;
    long records;
    long bytes;
    long deleteFiles;
    long positionDeleteFiles;
    long dvs;
    long positionDeletes;
    long equalityDeletes;
    long deleteBytes;

    void add(ContentFile f) {
      switch (f.content()) {
        case DATA:
          files += 1;
          records += f.recordCount();
          bytes += f.fileSizeInBytes();
          break;
        case POSITION_DELETES:
          deleteFiles += 1;
          positionDeletes += f.recordCount();
          if (f instanceof DeleteFile d && ContentFiles.isDeletionVector(d)) {
            dvs += 1;
            deleteBytes += d.contentSizeInBytes() != null ? d.contentSizeInBytes() : 0;
          } else {
            positionDeleteFiles += 1;
            deleteBytes += f.fileSizeInBytes();
          }
          break;
        default:
          deleteFiles += 1;
          equalityDeletes += f.recordCount();
          deleteBytes += f.fileSizeInBytes();
          break;
      }
    }
  }

  /** Publishes the snapshot, retrying on lost races per the table's commit.retry.* properties. */
  public Snapshot commit() {
    TableMetadata base = ops.refresh();
    if (base == null) {
      throw new IllegalStateException("Cannot commit to table " + ops.tableName() + ": it does not exist");
    }
    return InFlightCommit.around(ops, commitUuid, () -> commitWithRetries(base));
  }

  private Snapshot commitWithRetries(TableMetadata start) {
    TableMetadata base = start;
    RetryPolicy retry = RetryPolicy.from(base.properties());
    long started = System.currentTimeMillis();
    int failures = 0;
    while (true) {
      TableMetadata updated;
      try {
        updated = apply(base);
        if (lastApplyChangedNothing && skipsEmptyCommit()) {
          cleanUpAll();
          return ManageRefs.branchHead(base, targetBranch, ops.tableName());
        }
        InFlightCommit.checkAddedFilesExist(io(), ops.tableName(), addedLocations(updated, failures == 0));
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

  /**
   * The files to check before publishing {@code updated}: new manifests, the manifest list, and, when
   * asked and only on the first attempt, data and delete files (a retry publishes the same files,
   * still kept from orphan removal by the write's marker, so checking them again would cost one
   * existence check per file per retry on an object store).
   */
  private List<String> addedLocations(TableMetadata updated, boolean firstAttempt) {
    List<String> added = new ArrayList<>();
    if (checkAddedFilesExist && firstAttempt) {
      addedFiles.forEach(f -> added.add(f.path()));
      addedDeleteFiles.forEach(f -> added.add(f.path()));
    }
    for (String manifest : lastListedManifests) {
      if (writtenMetadataFiles.contains(manifest)) {
        added.add(manifest);
      }
    }
    Snapshot snap = updated.snapshot(snapshotId());
    if (snap != null && snap.manifestListLocation() != null) {
      added.add(snap.manifestListLocation());
    }
    return added;
  }

  /** After success: remove manifest lists from lost attempts (never the committed one). */
  private void cleanUpUnused(TableMetadata committed) {
    Set<String> keep = new HashSet<>(lastListedManifests);
    Snapshot snap = committed.snapshot(snapshotId());
    if (snap != null) {
      keep.add(snap.manifestListLocation());
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

  /** Backoff between attempts from the commit.retry.* table properties (also used by index list commits). */
  public record RetryPolicy(int numRetries, long minWaitMs, long maxWaitMs, long totalTimeoutMs) {
    public static RetryPolicy from(Map<String, String> props) {
      return new RetryPolicy(
          TableProperties.intValue(props, TableProperties.COMMIT_NUM_RETRIES),
          TableProperties.longValue(props, TableProperties.COMMIT_MIN_RETRY_WAIT_MS),
          TableProperties.longValue(props, TableProperties.COMMIT_MAX_RETRY_WAIT_MS),
          TableProperties.longValue(props, TableProperties.COMMIT_TOTAL_RETRY_TIME_MS));
    }

    public void sleep(int failures) {
      long wait = Math.min(maxWaitMs, minWaitMs * (1L << Math.min(failures - 1, 20)));
      long jitter = (long) (Math.random() * wait * 0.1);
      try {
        Thread.sleep(wait + jitter);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CommitFailedException("Interrupted while retrying a commit", e);
      }
    }
  }
}
