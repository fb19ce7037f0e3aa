package io.floe.format.metadata;

import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One version of a table's metadata, as stored in a {@code v<N>.metadata.json} file. Immutable:
 * create with {@link #newTableMetadata}, change with {@link #buildFrom(TableMetadata)}, read and
 * write with {@link TableMetadataParser}.
 */
public final class TableMetadata {
  public static final int MIN_FORMAT_VERSION = 1;
  public static final int MAX_FORMAT_VERSION = 3;
  /** Marks "no current snapshot" in v1/v2 metadata. */
  static final long NO_SNAPSHOT = -1L;

  private final String metadataFileLocation;
  private final int formatVersion;
  private final String uuid;
  private final String location;
  private final long lastSequenceNumber;
  private final long lastUpdatedMillis;
  private final int lastColumnId;
  private final int currentSchemaId;
  private final List<Schema> schemas;
  private final int defaultSpecId;
  private final List<PartitionSpec> specs;
  private final int lastAssignedPartitionId;
  private final int defaultSortOrderId;
  private final List<SortOrder> sortOrders;
  private final Map<String, String> properties;
  private final long currentSnapshotId;
  private final List<Snapshot> snapshots;
  private final Map<String, SnapshotRef> refs;
  private final List<SnapshotLogEntry> snapshotLog;
  private final List<MetadataLogEntry> previousFiles;
  private final List<StatisticsFile> statisticsFiles;
  private final List<PartitionStatisticsFile> partitionStatisticsFiles;
  private final long nextRowId;
  private final String commitId;

  private final Map<Integer, Schema> schemasById;
  private final Map<Integer, PartitionSpec> specsById;
  private final Map<Integer, SortOrder> sortOrdersById;
  private final Map<Long, Snapshot> snapshotsById;

  /** Copies the builder's state and checks that it is consistent (see {@link MetadataChecks}). */
  TableMetadata(TableMetadataBuilder b, String metadataFileLocation) {
    this.metadataFileLocation = metadataFileLocation;
    this.formatVersion = b.formatVersion;
    this.uuid = b.uuid;
    this.location = b.location;
    this.lastSequenceNumber = b.lastSequenceNumber;
    this.lastUpdatedMillis = b.lastUpdatedMillis;
    this.lastColumnId = b.lastColumnId;
    this.currentSchemaId = b.currentSchemaId;
    this.schemas = List.copyOf(b.schemas);
    this.defaultSpecId = b.defaultSpecId;
    this.specs = List.copyOf(b.specs);
    this.lastAssignedPartitionId = b.lastAssignedPartitionId;
    this.defaultSortOrderId = b.defaultSortOrderId;
    this.sortOrders = List.copyOf(b.sortOrders);
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(b.properties));
    this.currentSnapshotId = b.currentSnapshotId;
    this.snapshots = List.copyOf(b.snapshots);
    this.refs = Collections.unmodifiableMap(new LinkedHashMap<>(b.refs));
    this.snapshotLog = List.copyOf(b.snapshotLog);
    this.previousFiles = List.copyOf(b.previousFiles);
    this.statisticsFiles = List.copyOf(b.statisticsFiles);
    this.partitionStatisticsFiles = List.copyOf(b.partitionStatisticsFiles);
    this.nextRowId = b.nextRowId;
    this.commitId = b.commitId;
    this.schemasById = index(schemas, Schema::schemaId, "schema");
    this.specsById = index(specs, PartitionSpec::specId, "partition spec");
    this.sortOrdersById = index(sortOrders, SortOrder::orderId, "sort order");
    this.snapshotsById = index(snapshots, Snapshot::snapshotId, "snapshot");
    MetadataChecks.check(this);
  }

  private static <K, V> Map<K, V> index(List<V> values, Function<V, K> key, String what) {
    Map<K, V> out = new LinkedHashMap<>();
    for (V v : values) {
      if (out.put(key.apply(v), v) != null) {
        throw new IllegalArgumentException("Invalid table metadata: duplicate " + what + " id " + key.apply(v));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * Metadata for a new table. Field ids are assigned afresh (top-level 1..n, then nested fields level
   * by level); the spec (id 0, partition field ids from 1000) and the sort order (id 1, or 0 when
   * unsorted) are rebuilt against the fresh schema by source column name. The reserved
   * {@code format-version} property is dropped; {@code formatVersion} decides.
   */
  public static TableMetadata newTableMetadata(Schema schema, PartitionSpec spec, SortOrder order,
      String location, Map<String, String> properties, int formatVersion) {
    return FreshTable.builder(schema, spec, order, location, properties, formatVersion).build();
  }

  /** A builder of the next version of {@code base}. */
  public static TableMetadataBuilder buildFrom(TableMetadata base) {
    return new TableMetadataBuilder(base);
  }

  /** This metadata, recorded as read from (or written to) {@code newLocation}; nothing else changes. */
  public TableMetadata withMetadataFileLocation(String newLocation) {
    return new TableMetadata(this, newLocation);
  }

  /** Shares {@code other}'s immutable state, which was checked when {@code other} was built. */
  private TableMetadata(TableMetadata other, String metadataFileLocation) {
    this.metadataFileLocation = metadataFileLocation;
    this.formatVersion = other.formatVersion;
    this.uuid = other.uuid;
    this.location = other.location;
    this.lastSequenceNumber = other.lastSequenceNumber;
    this.lastUpdatedMillis = other.lastUpdatedMillis;
    this.lastColumnId = other.lastColumnId;
    this.currentSchemaId = other.currentSchemaId;
    this.schemas = other.schemas;
    this.defaultSpecId = other.defaultSpecId;
    this.specs = other.specs;
    this.lastAssignedPartitionId = other.lastAssignedPartitionId;
    this.defaultSortOrderId = other.defaultSortOrderId;
    this.sortOrders = other.sortOrders;
    this.properties = other.properties;
    this.currentSnapshotId = other.currentSnapshotId;
    this.snapshots = other.snapshots;
    this.refs = other.refs;
    this.snapshotLog = other.snapshotLog;
    this.previousFiles = other.previousFiles;
    this.statisticsFiles = other.statisticsFiles;
    this.partitionStatisticsFiles = other.partitionStatisticsFiles;
    this.nextRowId = other.nextRowId;
    this.commitId = other.commitId;
    this.schemasById = other.schemasById;
    this.specsById = other.specsById;
    this.sortOrdersById = other.sortOrdersById;
    this.snapshotsById = other.snapshotsById;
  }

  /** Where this metadata was read from; null for metadata built in memory and not yet written. */
  public String metadataFileLocation() {
    return metadataFileLocation;
  }

  public int formatVersion() {
    return formatVersion;
  }

  public String uuid() {
    return uuid;
  }

  public String location() {
    return location;
  }

  /**
   * Where new data files (and writers' in-flight markers) go: {@code write.data.path}, else
   * {@code <location>/data}. Writers and orphan removal both ask here, so they never disagree.
   */
  public String dataLocation() {
    String custom = properties.get(TableProperties.WRITE_DATA_PATH);
    return custom != null ? custom : location + "/data";
  }

  public long lastSequenceNumber() {
    return lastSequenceNumber;
  }

  /** The sequence number the next snapshot gets (v2+). */
  public long nextSequenceNumber() {
    return formatVersion > 1 ? lastSequenceNumber + 1 : 0;
  }

  public long lastUpdatedMillis() {
    return lastUpdatedMillis;
  }

  public int lastColumnId() {
    return lastColumnId;
  }

  public Schema schema() {
    return schemasById.get(currentSchemaId);
  }

  public int currentSchemaId() {
    return currentSchemaId;
  }

  public List<Schema> schemas() {
    return schemas;
  }

  public Map<Integer, Schema> schemasById() {
    return schemasById;
  }

  /** The default partition spec. */
  public PartitionSpec spec() {
    return specsById.get(defaultSpecId);
  }

  public PartitionSpec spec(int specId) {
    return specsById.get(specId);
  }

  public List<PartitionSpec> specs() {
    return specs;
  }

  public Map<Integer, PartitionSpec> specsById() {
    return specsById;
  }

  public int defaultSpecId() {
    return defaultSpecId;
  }

  /** The highest partition field id ever assigned; 999 when none was. */
  public int lastAssignedPartitionId() {
    return lastAssignedPartitionId;
  }

  /** The default sort order. */
  public SortOrder sortOrder() {
    return sortOrdersById.get(defaultSortOrderId);
  }

  public List<SortOrder> sortOrders() {
    return sortOrders;
  }

  public Map<Integer, SortOrder> sortOrdersById() {
    return sortOrdersById;
  }

  public int defaultSortOrderId() {
    return defaultSortOrderId;
  }

  public Map<String, String> properties() {
    return properties;
  }

  public String property(String key, String defaultValue) {
    return properties.getOrDefault(key, defaultValue);
  }

  public int propertyAsInt(String key, int defaultValue) {
    return intProperty(properties, key, defaultValue);
  }

  public long propertyAsLong(String key, long defaultValue) {
    String value = properties.get(key);
    return value == null ? defaultValue : parse(key, value, Long::parseLong);
  }

  static int intProperty(Map<String, String> properties, String key, int defaultValue) {
    String value = properties.get(key);
    return value == null ? defaultValue : parse(key, value, Integer::parseInt);
  }

  public boolean propertyAsBoolean(String key, boolean defaultValue) {
    String value = properties.get(key);
    return value == null ? defaultValue : Boolean.parseBoolean(value.trim());
  }

  private static <T> T parse(String key, String value, Function<String, T> parser) {
    try {
      return parser.apply(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid value for table property " + key + ": " + value, e);
    }
  }

  /** The head of {@code main}, or null when the table has no snapshot. */
  public Snapshot currentSnapshot() {
    return currentSnapshotId == NO_SNAPSHOT ? null : snapshotsById.get(currentSnapshotId);
  }

  /** The current snapshot id, or -1 when there is none. */
  long currentSnapshotId() {
    return currentSnapshotId;
  }

  public List<Snapshot> snapshots() {
    return snapshots;
  }

  /** The snapshot with this id, or null. */
  public Snapshot snapshot(long snapshotId) {
    return snapshotsById.get(snapshotId);
  }

  public Map<String, SnapshotRef> refs() {
    return refs;
  }

  /** The ref with this name, or null. */
  public SnapshotRef ref(String name) {
    return refs.get(name);
  }

  public List<SnapshotLogEntry> snapshotLog() {
    return snapshotLog;
  }

  /** The {@code metadata-log}: earlier metadata files, oldest first. */
  public List<MetadataLogEntry> previousFiles() {
    return previousFiles;
  }

  public List<StatisticsFile> statisticsFiles() {
    return statisticsFiles;
  }

  public List<PartitionStatisticsFile> partitionStatisticsFiles() {
    return partitionStatisticsFiles;
  }

  /** v3 row lineage: the first row id the next snapshot assigns; 0 before v3. */
  public long nextRowId() {
    return nextRowId;
  }

  /** The id of the commit that wrote this metadata (key {@code floe-commit-id}), or null. */
  public String commitId() {
    return commitId;
  }

  @Override
  public String toString() {
    return "TableMetadata{location=" + location + ", format-version=" + formatVersion + ", uuid=" + uuid
        + ", current-snapshot-id=" + currentSnapshotId + ", file=" + metadataFileLocation + "}";
  }
}
