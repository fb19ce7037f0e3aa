package io.floe.format.metadata;

import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The next version of a table's metadata: {@code TableMetadata.buildFrom(base).addSnapshot(s)
 * .setBranchSnapshot(s.snapshotId(), "main").build()}. Each method checks its change at once and
 * throws {@link IllegalArgumentException} naming the offending value.
 *
 * <p>{@link #build()} sets {@code last-updated-ms} to now (never before the base's), appends the
 * base's metadata file to {@code metadata-log} when the base was read from a file, and trims that
 * log to {@code write.metadata.previous-versions-max}. The commit id is not inherited.
 */
public final class TableMetadataBuilder {
  // Package-private so that TableMetadataParser can fill a builder with a file's exact state.
  int formatVersion;
  String uuid;
  String location;
  long lastSequenceNumber;
  long lastUpdatedMillis;
  int lastColumnId;
  int currentSchemaId;
  List<Schema> schemas = new ArrayList<>();
  int defaultSpecId;
  List<PartitionSpec> specs = new ArrayList<>();
  int lastAssignedPartitionId = PartitionSpec.PARTITION_DATA_ID_START - 1;
  int defaultSortOrderId;
  List<SortOrder> sortOrders = new ArrayList<>();
  Map<String, String> properties = new LinkedHashMap<>();
  long currentSnapshotId = TableMetadata.NO_SNAPSHOT;
  List<Snapshot> snapshots = new ArrayList<>();
  Map<String, SnapshotRef> refs = new LinkedHashMap<>();
  List<SnapshotLogEntry> snapshotLog = new ArrayList<>();
  List<MetadataLogEntry> previousFiles = new ArrayList<>();
  List<StatisticsFile> statisticsFiles = new ArrayList<>();
  List<PartitionStatisticsFile> partitionStatisticsFiles = new ArrayList<>();
  long nextRowId;
  String commitId;

  private final TableMetadata base;
  private final long now;
  private final Set<Long> addedSnapshotIds = new HashSet<>();
  private boolean snapshotsRemoved;
  private boolean metadataLogCleared;
  private Integer lastAddedSpecId;
  private Integer lastAddedOrderId;

  /** An empty builder, filled field by field by the parser. */
  TableMetadataBuilder() {
    this.base = null;
    this.now = System.currentTimeMillis();
  }

  TableMetadataBuilder(TableMetadata base) {
    this.base = Objects.requireNonNull(base, "Base table metadata is null");
    this.now = Math.max(System.currentTimeMillis(), base.lastUpdatedMillis());
    copyFrom(base);
    this.commitId = null;
  }

  /** A builder holding exactly {@code metadata}'s state, commit id included. */
  static TableMetadataBuilder copyOf(TableMetadata metadata) {
    TableMetadataBuilder b = new TableMetadataBuilder();
    b.copyFrom(metadata);
    return b;
  }

  private void copyFrom(TableMetadata m) {
    formatVersion = m.formatVersion();
    uuid = m.uuid();
    location = m.location();
    lastSequenceNumber = m.lastSequenceNumber();
    lastUpdatedMillis = m.lastUpdatedMillis();
    lastColumnId = m.lastColumnId();
    currentSchemaId = m.currentSchemaId();
    schemas = new ArrayList<>(m.schemas());
    defaultSpecId = m.defaultSpecId();
    specs = new ArrayList<>(m.specs());
    lastAssignedPartitionId = m.lastAssignedPartitionId();
    defaultSortOrderId = m.defaultSortOrderId();
    sortOrders = new ArrayList<>(m.sortOrders());
    properties = new LinkedHashMap<>(m.properties());
    currentSnapshotId = m.currentSnapshotId();
    snapshots = new ArrayList<>(m.snapshots());
    refs = new LinkedHashMap<>(m.refs());
    snapshotLog = new ArrayList<>(m.snapshotLog());
    previousFiles = new ArrayList<>(m.previousFiles());
    statisticsFiles = new ArrayList<>(m.statisticsFiles());
    partitionStatisticsFiles = new ArrayList<>(m.partitionStatisticsFiles());
    nextRowId = m.nextRowId();
    commitId = m.commitId();
  }

  public TableMetadataBuilder withCommitId(String id) {
    this.commitId = id;
    return this;
  }

  public TableMetadataBuilder setLocation(String newLocation) {
    this.location = stripTrailingSlash(Objects.requireNonNull(newLocation, "Table location is null"));
    return this;
  }

  /**
   * Adds or replaces properties. The reserved key {@code format-version} is not stored: it upgrades
   * the table instead.
   */
  public TableMetadataBuilder setProperties(Map<String, String> updates) {
    for (Map.Entry<String, String> e : updates.entrySet()) {
      if (TableProperties.FORMAT_VERSION.equals(e.getKey())) {
        upgradeFormatVersion(parseVersion(e.getValue()));
      } else {
        properties.put(e.getKey(),
            Objects.requireNonNull(e.getValue(), "Value of property " + e.getKey() + " is null"));
      }
    }
    return this;
  }

  private static int parseVersion(String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid format-version: " + value, e);
    }
  }

  public TableMetadataBuilder removeProperties(Collection<String> keys) {
    keys.forEach(properties::remove);
    return this;
  }

  public TableMetadataBuilder upgradeFormatVersion(int newVersion) {
    if (newVersion > TableMetadata.MAX_FORMAT_VERSION) {
      throw new IllegalArgumentException("Unsupported format version: v" + newVersion
          + " (supported: up to v" + TableMetadata.MAX_FORMAT_VERSION + ")");
    }
    if (newVersion < formatVersion) {
      throw new IllegalArgumentException("Cannot downgrade v" + formatVersion + " table to v" + newVersion);
    }
    if (newVersion > 1 && uuid == null) {
      uuid = UUID.randomUUID().toString();
    }
    this.formatVersion = newVersion;
    return this;
  }

  /**
   * Makes {@code schema} current. An existing schema with the same fields is reused with its id;
   * otherwise the schema is added with the next schema id. Specs are rebound to the new schema.
   */
  public TableMetadataBuilder setCurrentSchema(Schema schema, int newLastColumnId) {
    if (newLastColumnId < lastColumnId) {
      throw new IllegalArgumentException("Invalid last column id " + newLastColumnId
          + ": less than the previous last column id " + lastColumnId);
    }
    if (schema.highestFieldId() > newLastColumnId) {
      throw new IllegalArgumentException("Invalid last column id " + newLastColumnId
          + ": less than the schema's highest field id " + schema.highestFieldId());
    }
    Schema chosen = null;
    for (Schema existing : schemas) {
      if (existing.sameSchema(schema)) {
        chosen = existing;
      }
    }
    if (chosen == null) {
      int newId = schemas.stream().mapToInt(Schema::schemaId).max().orElse(-1) + 1;
      chosen = schema.withSchemaId(newId);
      schemas.add(chosen);
    }
    this.currentSchemaId = chosen.schemaId();
    this.lastColumnId = newLastColumnId;
    Schema current = chosen;
    specs.replaceAll(spec -> spec.withSchema(current));
    return this;
  }

  /** Makes an existing schema current. */
  public TableMetadataBuilder setCurrentSchema(int schemaId) {
    Schema current = schemas.stream().filter(s -> s.schemaId() == schemaId).findFirst().orElseThrow(
        () -> new IllegalArgumentException("Cannot set current schema: unknown schema id " + schemaId));
    this.currentSchemaId = schemaId;
    specs.replaceAll(spec -> spec.withSchema(current));
    return this;
  }

  /**
   * Adds a partition spec. Partition field ids are reassigned: a (source, transform) pair seen in any
   * spec keeps its id (v2+), new pairs get ids after {@code last-partition-id}. A spec equal to an
   * existing one is not added again; its id is reused.
   */
  public TableMetadataBuilder addPartitionSpec(PartitionSpec spec) {
    int newSpecId = specs.stream().mapToInt(PartitionSpec::specId).max().orElse(-1) + 1;
    PartitionSpec candidate = SpecEvolution.withTableFieldIds(spec, newSpecId, currentSchema(), specs,
        lastAssignedPartitionId, formatVersion);
    for (PartitionSpec existing : specs) {
      if (existing.compatibleWith(candidate)) {
        lastAddedSpecId = existing.specId();
        return this;
      }
    }
    specs.add(candidate);
    lastAssignedPartitionId = Math.max(lastAssignedPartitionId, candidate.lastAssignedFieldId());
    lastAddedSpecId = newSpecId;
    return this;
  }

  /** Sets the default spec by id; -1 means the spec added last by this builder. */
  public TableMetadataBuilder setDefaultPartitionSpec(int specId) {
    int id = specId == -1 ? requireLastAdded(lastAddedSpecId, "partition spec") : specId;
    if (specs.stream().noneMatch(s -> s.specId() == id)) {
      throw new IllegalArgumentException("Cannot set default partition spec: unknown spec id " + id);
    }
    this.defaultSpecId = id;
    return this;
  }

  public TableMetadataBuilder setDefaultPartitionSpec(PartitionSpec spec) {
    return addPartitionSpec(spec).setDefaultPartitionSpec(-1);
  }

  /** Adds a sort order, reusing the id of an existing order with the same fields. */
  public TableMetadataBuilder addSortOrder(SortOrder order) {
    for (SortOrder existing : sortOrders) {
      if (existing.sameOrder(order)) {
        lastAddedOrderId = existing.orderId();
        return this;
      }
    }
    if (order.isUnsorted()) {
      sortOrders.add(SortOrder.unsorted());
      lastAddedOrderId = SortOrder.UNSORTED_ORDER_ID;
      return this;
    }
    int newId = Math.max(SortOrder.INITIAL_SORT_ORDER_ID,
        sortOrders.stream().mapToInt(SortOrder::orderId).max().orElse(0) + 1);
    sortOrders.add(order.withOrderId(newId));
    lastAddedOrderId = newId;
    return this;
  }

  /** Sets the default sort order by id; -1 means the order added last by this builder. */
  public TableMetadataBuilder setDefaultSortOrder(int orderId) {
    int id = orderId == -1 ? requireLastAdded(lastAddedOrderId, "sort order") : orderId;
    if (sortOrders.stream().noneMatch(o -> o.orderId() == id)) {
      throw new IllegalArgumentException("Cannot set default sort order: unknown order id " + id);
    }
    this.defaultSortOrderId = id;
    return this;
  }

  public TableMetadataBuilder setDefaultSortOrder(SortOrder order) {
    return addSortOrder(order).setDefaultSortOrder(-1);
  }

  private static int requireLastAdded(Integer id, String what) {
    if (id == null) {
      throw new IllegalArgumentException("Cannot use the last added " + what + ": none was added");
    }
    return id;
  }

  /**
   * Adds a snapshot without making it current. v2+: its sequence number must be greater than
   * {@code last-sequence-number}, which it becomes. v3: its {@code first-row-id} must be at least
   * {@code next-row-id}, which then grows by {@code added-rows}.
   */
  public TableMetadataBuilder addSnapshot(Snapshot snapshot) {
    long id = snapshot.snapshotId();
    if (snapshots.stream().anyMatch(s -> s.snapshotId() == id)) {
      throw new IllegalArgumentException("Cannot add snapshot " + id + ": a snapshot with this id exists");
    }
    if (formatVersion > 1 && snapshot.sequenceNumber() <= lastSequenceNumber) {
      throw new IllegalArgumentException("Cannot add snapshot " + id + " with sequence number "
          + snapshot.sequenceNumber() + ": not greater than last-sequence-number " + lastSequenceNumber);
    }
    if (formatVersion >= 3) {
      if (snapshot.firstRowId() == null || snapshot.addedRows() == null) {
        throw new IllegalArgumentException("Cannot add snapshot " + id
            + " to a v3 table: first-row-id and added-rows are required");
      }
      if (snapshot.firstRowId() < nextRowId) {
        throw new IllegalArgumentException("Cannot add snapshot " + id + ": first-row-id "
            + snapshot.firstRowId() + " is before the table's next-row-id " + nextRowId);
      }
      nextRowId += snapshot.addedRows();
    }
    snapshots.add(snapshot);
    lastSequenceNumber = Math.max(lastSequenceNumber, snapshot.sequenceNumber());
    addedSnapshotIds.add(id);
    return this;
  }

  /** Points a branch at a snapshot, keeping the branch's retention settings; main also becomes current. */
  public TableMetadataBuilder setBranchSnapshot(long snapshotId, String branch) {
    SnapshotRef existing = refs.get(branch);
    if (existing != null && !existing.isBranch()) {
      throw new IllegalArgumentException("Cannot set branch " + branch + ": a tag has this name");
    }
    SnapshotRef ref = existing == null ? SnapshotRef.branch(snapshotId)
        : existing.toBuilder().snapshotId(snapshotId).build();
    return setRef(branch, ref);
  }

  /** Adds the snapshot, then points the branch at it. */
  public TableMetadataBuilder setBranchSnapshot(Snapshot snapshot, String branch) {
    return addSnapshot(snapshot).setBranchSnapshot(snapshot.snapshotId(), branch);
  }

  public TableMetadataBuilder setRef(String name, SnapshotRef ref) {
    Snapshot snapshot = findSnapshot(ref.snapshotId());
    if (snapshot == null) {
      throw new IllegalArgumentException("Cannot set ref " + name + ": unknown snapshot id " + ref.snapshotId());
    }
    if (ref.equals(refs.get(name))) {
      return this;
    }
    if (SnapshotRef.MAIN_BRANCH.equals(name)) {
      if (!ref.isBranch()) {
        throw new IllegalArgumentException("Cannot set ref main: main must be a branch");
      }
      currentSnapshotId = ref.snapshotId();
      long ts = addedSnapshotIds.contains(ref.snapshotId()) ? snapshot.timestampMillis() : now;
      snapshotLog.add(new SnapshotLogEntry(ts, ref.snapshotId()));
    }
    refs.put(name, ref);
    return this;
  }

  /** Removes a ref; removing main leaves the table without a current snapshot. */
  public TableMetadataBuilder removeRef(String name) {
    if (refs.remove(name) != null && SnapshotRef.MAIN_BRANCH.equals(name)) {
      currentSnapshotId = TableMetadata.NO_SNAPSHOT;
    }
    return this;
  }

  /**
   * Removes snapshots (unknown ids are ignored), the refs that point at them and their statistics.
   * {@link #build()} then drops the snapshot-log entries up to the last one naming a removed snapshot.
   */
  public TableMetadataBuilder removeSnapshots(Collection<Long> snapshotIds) {
    Set<Long> ids = new HashSet<>(snapshotIds);
    if (!snapshots.removeIf(s -> ids.contains(s.snapshotId()))) {
      return this;
    }
    snapshotsRemoved = true;
    for (String name : new ArrayList<>(refs.keySet())) {
      if (ids.contains(refs.get(name).snapshotId())) {
        removeRef(name);
      }
    }
    statisticsFiles.removeIf(f -> ids.contains(f.snapshotId()));
    partitionStatisticsFiles.removeIf(f -> ids.contains(f.snapshotId()));
    return this;
  }

  /**
   * Replaces snapshots by id with new versions of themselves (e.g. rewritten manifest-list
   * locations); every id must name an existing snapshot. Refs and logs are unchanged.
   */
  public TableMetadataBuilder replaceSnapshots(Collection<Snapshot> replacements) {
    for (Snapshot replacement : replacements) {
      int index = -1;
      for (int i = 0; i < snapshots.size(); i++) {
        if (snapshots.get(i).snapshotId() == replacement.snapshotId()) {
          index = i;
        }
      }
      if (index < 0) {
        throw new IllegalArgumentException("Cannot replace snapshot " + replacement.snapshotId()
            + ": unknown snapshot id");
      }
      snapshots.set(index, replacement);
    }
    return this;
  }

  /**
   * Removes partition specs by id (unknown ids are ignored), e.g. specs no retained snapshot uses
   * after snapshot expiry. The default spec cannot be removed.
   */
  public TableMetadataBuilder removeSpecs(Collection<Integer> specIds) {
    if (specIds.contains(defaultSpecId)) {
      throw new IllegalArgumentException("Cannot remove partition spec " + defaultSpecId + ": it is the default spec");
    }
    specs.removeIf(s -> specIds.contains(s.specId()));
    return this;
  }

  /**
   * Removes schemas by id (unknown ids are ignored), e.g. schemas no retained snapshot uses after
   * snapshot expiry. The current schema cannot be removed.
   */
  public TableMetadataBuilder removeSchemas(Collection<Integer> schemaIds) {
    if (schemaIds.contains(currentSchemaId)) {
      throw new IllegalArgumentException("Cannot remove schema " + currentSchemaId + ": it is the current schema");
    }
    schemas.removeIf(s -> schemaIds.contains(s.schemaId()));
    return this;
  }

  /** Empties {@code metadata-log}; the base's file is not added to it either (e.g. after a move). */
  public TableMetadataBuilder clearMetadataLog() {
    previousFiles.clear();
    metadataLogCleared = true;
    return this;
  }

  /** Registers a statistics file, replacing any other for the same snapshot. */
  public TableMetadataBuilder setStatistics(StatisticsFile file) {
    removeStatistics(file.snapshotId());
    statisticsFiles.add(file);
    return this;
  }

  public TableMetadataBuilder removeStatistics(long snapshotId) {
    statisticsFiles.removeIf(f -> f.snapshotId() == snapshotId);
    return this;
  }

  /** Registers a partition-statistics file, replacing any other for the same snapshot. */
  public TableMetadataBuilder setPartitionStatistics(PartitionStatisticsFile file) {
    removePartitionStatistics(file.snapshotId());
    partitionStatisticsFiles.add(file);
    return this;
  }

  public TableMetadataBuilder removePartitionStatistics(long snapshotId) {
    partitionStatisticsFiles.removeIf(f -> f.snapshotId() == snapshotId);
    return this;
  }

  public TableMetadata build() {
    long newest = now;
    if (!snapshotLog.isEmpty()) {
      newest = Math.max(newest, snapshotLog.get(snapshotLog.size() - 1).timestampMillis());
    }
    this.lastUpdatedMillis = Math.max(newest, base == null ? 0 : base.lastUpdatedMillis());
    if (snapshotsRemoved) {
      snapshotLog = MetadataLogs.withoutExpired(snapshotLog, snapshots);
    }
    if (base != null && base.metadataFileLocation() != null && !metadataLogCleared) {
      previousFiles = MetadataLogs.append(previousFiles,
          new MetadataLogEntry(base.lastUpdatedMillis(), base.metadataFileLocation()),
          TableMetadata.intProperty(properties, TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
              TableProperties.METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT));
    }
    return new TableMetadata(this, null);
  }

  /** Builds exactly what was filled in: no timestamps, no log changes (for parsing and copies). */
  TableMetadata buildExact(String metadataFileLocation) {
    return new TableMetadata(this, metadataFileLocation);
  }

  private Schema currentSchema() {
    return schemas.stream().filter(s -> s.schemaId() == currentSchemaId).findFirst()
        .orElseThrow(() -> new IllegalStateException("Current schema " + currentSchemaId + " is missing"));
  }

  private Snapshot findSnapshot(long id) {
    return snapshots.stream().filter(s -> s.snapshotId() == id).findFirst().orElse(null);
  }

  static String stripTrailingSlash(String path) {
    String out = path;
    while (out.length() > 1 && out.endsWith("/") && !out.endsWith("://")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }
}
