package io.floe.format.metadata;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Table property keys (kebab-case, as the reference implementation names them), their defaults,
 * and the registry of every property Floe knows ({@link #known}) with the values each accepts.
 * Statements that set properties check values against the registry; readers get typed values from
 * {@link #intValue}, {@link #longValue}, {@link #booleanValue} and {@link #stringValue}. Keys the
 * registry does not know are the user's own and are never checked.
 */
public final class TableProperties {
  private TableProperties() {}

  /** Reserved: chooses the format version at create time or upgrades it; never stored as a property. */
  public static final String FORMAT_VERSION = "format-version";
  public static final int DEFAULT_FORMAT_VERSION = 2;

  public static final String DEFAULT_FILE_FORMAT = "write.format.default";
  public static final String DEFAULT_FILE_FORMAT_DEFAULT = "parquet";

  public static final String PARQUET_COMPRESSION = "write.parquet.compression-codec";
  public static final String PARQUET_COMPRESSION_DEFAULT = "zstd";

  public static final String WRITE_TARGET_FILE_SIZE_BYTES = "write.target-file-size-bytes";
  public static final long WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT = 536_870_912L;

  public static final String COMMIT_NUM_RETRIES = "commit.retry.num-retries";
  public static final int COMMIT_NUM_RETRIES_DEFAULT = 4;

  public static final String COMMIT_MIN_RETRY_WAIT_MS = "commit.retry.min-wait-ms";
  public static final long COMMIT_MIN_RETRY_WAIT_MS_DEFAULT = 100L;

  public static final String COMMIT_MAX_RETRY_WAIT_MS = "commit.retry.max-wait-ms";
  public static final long COMMIT_MAX_RETRY_WAIT_MS_DEFAULT = 60_000L;

  public static final String COMMIT_TOTAL_RETRY_TIME_MS = "commit.retry.total-timeout-ms";
  public static final long COMMIT_TOTAL_RETRY_TIME_MS_DEFAULT = 1_800_000L;

  public static final String METADATA_PREVIOUS_VERSIONS_MAX = "write.metadata.previous-versions-max";
  public static final int METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT = 100;

  public static final String METADATA_DELETE_AFTER_COMMIT_ENABLED = "write.metadata.delete-after-commit.enabled";
  public static final boolean METADATA_DELETE_AFTER_COMMIT_ENABLED_DEFAULT = false;

  public static final String DEFAULT_WRITE_METRICS_MODE = "write.metadata.metrics.default";
  public static final String DEFAULT_WRITE_METRICS_MODE_DEFAULT = "truncate(16)";

  public static final String MAX_SNAPSHOT_AGE_MS = "history.expire.max-snapshot-age-ms";
  public static final long MAX_SNAPSHOT_AGE_MS_DEFAULT = 432_000_000L;

  public static final String MIN_SNAPSHOTS_TO_KEEP = "history.expire.min-snapshots-to-keep";
  public static final int MIN_SNAPSHOTS_TO_KEEP_DEFAULT = 1;

  public static final String WRITE_DISTRIBUTION_MODE = "write.distribution-mode";
  public static final String WRITE_DISTRIBUTION_MODE_DEFAULT = "hash";

  public static final String COPY_ON_WRITE = "copy-on-write";
  public static final String MERGE_ON_READ = "merge-on-read";

  public static final String DELETE_MODE = "write.delete.mode";
  public static final String DELETE_MODE_DEFAULT = COPY_ON_WRITE;

  public static final String UPDATE_MODE = "write.update.mode";
  public static final String UPDATE_MODE_DEFAULT = COPY_ON_WRITE;

  public static final String MERGE_MODE = "write.merge.mode";
  public static final String MERGE_MODE_DEFAULT = COPY_ON_WRITE;

  public static final String GC_ENABLED = "gc.enabled";
  public static final boolean GC_ENABLED_DEFAULT = true;

  public static final String PARQUET_COMPRESSION_LEVEL = "write.parquet.compression-level";
  public static final String PARQUET_ROW_GROUP_SIZE_BYTES = "write.parquet.row-group-size-bytes";
  public static final String PARQUET_PAGE_SIZE_BYTES = "write.parquet.page-size-bytes";
  public static final String PARQUET_PAGE_ROW_LIMIT = "write.parquet.page-row-limit";
  public static final String PARQUET_DICT_SIZE_BYTES = "write.parquet.dict-size-bytes";
  public static final String SPARK_ADVISORY_PARTITION_SIZE = "write.spark.advisory-partition-size-bytes";
  public static final String WRITE_DATA_PATH = "write.data.path";
  public static final String DELETE_ISOLATION_LEVEL = "write.delete.isolation-level";
  public static final String UPDATE_ISOLATION_LEVEL = "write.update.isolation-level";
  public static final String MERGE_ISOLATION_LEVEL = "write.merge.isolation-level";
  public static final String METRICS_MODE_COLUMN_PREFIX = "write.metadata.metrics.column.";
  public static final String PARQUET_BLOOM_FILTER_COLUMN_PREFIX = "write.parquet.bloom-filter-enabled.column.";
  public static final String PARQUET_STATS_ENABLED_COLUMN_PREFIX = "write.parquet.stats-enabled.column.";
  public static final String MAX_REF_AGE_MS = "history.expire.max-ref-age-ms";
  public static final String MANIFEST_TARGET_SIZE_BYTES = "commit.manifest.target-size-bytes";
  public static final long MANIFEST_TARGET_SIZE_BYTES_DEFAULT = 8_388_608L;
  public static final String MANIFEST_MERGE_ENABLED = "commit.manifest-merge.enabled";
  public static final boolean MANIFEST_MERGE_ENABLED_DEFAULT = true;
  public static final String MANIFEST_MIN_MERGE_COUNT = "commit.manifest.min-count-to-merge";
  public static final int MANIFEST_MIN_MERGE_COUNT_DEFAULT = 100;
  public static final String STATISTICS_COMPRESSION = "write.statistics.compression-codec";
  public static final String SPLIT_SIZE = "read.split.target-size";
  public static final String SPLIT_OPEN_FILE_COST = "read.split.open-file-cost";
  /** Write-audit-publish: a session's {@code spark.wap.id} stages writes, {@code spark.wap.branch} sends them to a branch. */
  public static final String WRITE_AUDIT_PUBLISH_ENABLED = "write.wap.enabled";
  /**
   * The current index list file of the table (docs/indexes.md); Floe sets it with every index
   * change. A table property, because Iceberg and pyiceberg commits keep properties but drop unknown
   * top-level metadata fields.
   */
  public static final String INDEXES = "floe.indexes";
  /**
   * The number of segments an index accumulates before a commit that adds one merges the smallest
   * of them (docs/indexes.md, "Merging segments"), as {@link #MANIFEST_MIN_MERGE_COUNT} does for manifests.
   */
  public static final String INDEX_MIN_SEGMENTS_TO_MERGE = "floe.index.min-segments-to-merge";
  public static final int INDEX_MIN_SEGMENTS_TO_MERGE_DEFAULT = 16;

  private static final int MAX_INT = Integer.MAX_VALUE;
  private static final long MAX_LONG = Long.MAX_VALUE;

  private static final Map<String, TableProperty> KNOWN = registry(
      TableProperty.integer(FORMAT_VERSION, DEFAULT_FORMAT_VERSION, 2, 3),
      TableProperty.oneOf(DEFAULT_FILE_FORMAT, DEFAULT_FILE_FORMAT_DEFAULT, "parquet"),
      TableProperty.oneOf(PARQUET_COMPRESSION, PARQUET_COMPRESSION_DEFAULT,
          "zstd", "snappy", "gzip", "lz4", "uncompressed", "none"),
      TableProperty.integer(PARQUET_COMPRESSION_LEVEL, null, -131072, 22),
      TableProperty.number(PARQUET_ROW_GROUP_SIZE_BYTES, 134_217_728L, 1, MAX_LONG),
      TableProperty.integer(PARQUET_PAGE_SIZE_BYTES, 1_048_576, 1, MAX_INT),
      TableProperty.integer(PARQUET_PAGE_ROW_LIMIT, 20_000, 1, MAX_INT),
      TableProperty.integer(PARQUET_DICT_SIZE_BYTES, 2_097_152, 1, MAX_INT),
      TableProperty.number(WRITE_TARGET_FILE_SIZE_BYTES, WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT, 1, MAX_LONG),
      TableProperty.number(SPARK_ADVISORY_PARTITION_SIZE, null, 1, MAX_LONG),
      TableProperty.location(WRITE_DATA_PATH),
      TableProperty.oneOf(WRITE_DISTRIBUTION_MODE, WRITE_DISTRIBUTION_MODE_DEFAULT, "none", "hash", "range"),
      TableProperty.oneOf(DELETE_MODE, DELETE_MODE_DEFAULT, COPY_ON_WRITE, MERGE_ON_READ),
      TableProperty.oneOf(UPDATE_MODE, UPDATE_MODE_DEFAULT, COPY_ON_WRITE, MERGE_ON_READ),
      TableProperty.oneOf(MERGE_MODE, MERGE_MODE_DEFAULT, COPY_ON_WRITE, MERGE_ON_READ),
      TableProperty.oneOf(DELETE_ISOLATION_LEVEL, "serializable", "serializable", "snapshot"),
      TableProperty.oneOf(UPDATE_ISOLATION_LEVEL, "serializable", "serializable", "snapshot"),
      TableProperty.oneOf(MERGE_ISOLATION_LEVEL, "serializable", "serializable", "snapshot"),
      TableProperty.metricsMode(DEFAULT_WRITE_METRICS_MODE, DEFAULT_WRITE_METRICS_MODE_DEFAULT),
      TableProperty.integer(METADATA_PREVIOUS_VERSIONS_MAX, METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT, 1, MAX_INT),
      TableProperty.bool(METADATA_DELETE_AFTER_COMMIT_ENABLED, METADATA_DELETE_AFTER_COMMIT_ENABLED_DEFAULT),
      TableProperty.integer(COMMIT_NUM_RETRIES, COMMIT_NUM_RETRIES_DEFAULT, 0, MAX_INT),
      TableProperty.number(COMMIT_MIN_RETRY_WAIT_MS, COMMIT_MIN_RETRY_WAIT_MS_DEFAULT, 0, MAX_LONG),
      TableProperty.number(COMMIT_MAX_RETRY_WAIT_MS, COMMIT_MAX_RETRY_WAIT_MS_DEFAULT, 0, MAX_LONG),
      TableProperty.number(COMMIT_TOTAL_RETRY_TIME_MS, COMMIT_TOTAL_RETRY_TIME_MS_DEFAULT, 0, MAX_LONG),
      TableProperty.number(MANIFEST_TARGET_SIZE_BYTES, MANIFEST_TARGET_SIZE_BYTES_DEFAULT, 1, MAX_LONG),
      TableProperty.bool(MANIFEST_MERGE_ENABLED, MANIFEST_MERGE_ENABLED_DEFAULT),
      TableProperty.integer(MANIFEST_MIN_MERGE_COUNT, MANIFEST_MIN_MERGE_COUNT_DEFAULT, 0, MAX_INT),
      TableProperty.number(MAX_SNAPSHOT_AGE_MS, MAX_SNAPSHOT_AGE_MS_DEFAULT, 0, MAX_LONG),
      TableProperty.integer(MIN_SNAPSHOTS_TO_KEEP, MIN_SNAPSHOTS_TO_KEEP_DEFAULT, 1, MAX_INT),
      TableProperty.number(MAX_REF_AGE_MS, MAX_LONG, 0, MAX_LONG),
      TableProperty.bool(GC_ENABLED, GC_ENABLED_DEFAULT),
      TableProperty.oneOf(STATISTICS_COMPRESSION, "zstd", "zstd", "lz4", "none", "uncompressed"),
      TableProperty.byteSize(SPLIT_SIZE),
      TableProperty.byteSize(SPLIT_OPEN_FILE_COST),
      TableProperty.bool(WRITE_AUDIT_PUBLISH_ENABLED, false),
      TableProperty.location(INDEXES),
      TableProperty.integer(INDEX_MIN_SEGMENTS_TO_MERGE, INDEX_MIN_SEGMENTS_TO_MERGE_DEFAULT, 2, MAX_INT));

  /** Per-column properties: the key is the prefix followed by a column name. */
  private static final Map<String, TableProperty> KNOWN_PREFIXES = registry(
      TableProperty.metricsMode(METRICS_MODE_COLUMN_PREFIX, null),
      TableProperty.bool(PARQUET_BLOOM_FILTER_COLUMN_PREFIX, false),
      TableProperty.bool(PARQUET_STATS_ENABLED_COLUMN_PREFIX, true));

  private static Map<String, TableProperty> registry(TableProperty... properties) {
    Map<String, TableProperty> out = new LinkedHashMap<>();
    for (TableProperty p : properties) {
      if (out.put(p.key(), p) != null) {
        throw new IllegalStateException("Table property " + p.key() + " is listed twice");
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** The known property {@code key} names (per-column keys included); null for a key of the user's own. */
  public static TableProperty known(String key) {
    TableProperty p = KNOWN.get(key);
    if (p != null) {
      return p;
    }
    for (Map.Entry<String, TableProperty> prefix : KNOWN_PREFIXES.entrySet()) {
      if (key.startsWith(prefix.getKey()) && key.length() > prefix.getKey().length()) {
        return prefix.getValue().withKey(key);
      }
    }
    return null;
  }

  /** Every known property with a key of its own (per-column properties not included). */
  public static Collection<TableProperty> all() {
    return KNOWN.values();
  }

  /** The first known property in {@code properties} whose value it does not accept; null when all are valid. */
  public static TableProperty firstInvalid(Map<String, String> properties) {
    for (Map.Entry<String, String> e : new TreeMap<>(properties).entrySet()) {
      TableProperty p = known(e.getKey());
      if (p != null && !p.accepts(e.getValue())) {
        return p;
      }
    }
    return null;
  }

  private static TableProperty require(String key) {
    TableProperty p = known(key);
    if (p == null) {
      throw new IllegalArgumentException("Unknown table property " + key);
    }
    return p;
  }

  /** The value of known property {@code key}, or its default (null when it has none); a bad value is an error. */
  public static String stringValue(Map<String, String> properties, String key) {
    String value = require(key).valueIn(properties);
    return value == null ? null : value.toLowerCase(Locale.ROOT);
  }

  public static int intValue(Map<String, String> properties, String key) {
    return Math.toIntExact(longValue(properties, key));
  }

  public static long longValue(Map<String, String> properties, String key) {
    TableProperty p = require(key);
    if (p.kind() != TableProperty.Kind.INT && p.kind() != TableProperty.Kind.LONG) {
      throw new IllegalArgumentException("Table property " + key + " is not a number");
    }
    String value = p.valueIn(properties);
    if (value == null) {
      throw new IllegalArgumentException("Table property " + key + " has no default");
    }
    return Long.parseLong(value);
  }

  public static boolean booleanValue(Map<String, String> properties, String key) {
    TableProperty p = require(key);
    if (p.kind() != TableProperty.Kind.BOOLEAN) {
      throw new IllegalArgumentException("Table property " + key + " is not a boolean");
    }
    return Boolean.parseBoolean(p.valueIn(properties).toLowerCase(Locale.ROOT));
  }
}
