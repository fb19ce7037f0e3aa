package io.floe.format.metadata;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.format.FloeFormatException;
import io.floe.format.io.FileIO;
import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.PartitionSpecParser;
import io.floe.format.types.Schema;
import io.floe.format.types.SchemaParser;
import io.floe.format.util.JsonUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Table metadata JSON, with the keys, key order and presence rules of the reference writer: the
 * {@code refs}, {@code snapshots}, {@code statistics}, {@code partition-statistics},
 * {@code snapshot-log} and {@code metadata-log} lists are always written; v1 adds the single
 * {@code schema}/{@code partition-spec}; {@code current-snapshot-id} is -1 when empty (JSON null from
 * v3). The commit id travels as the extra key {@code floe-commit-id}, which other readers ignore.
 *
 * <p>Reading errors say which file and which field: {@code Cannot parse metadata file <loc>:
 * missing field: last-column-id}.
 */
public final class TableMetadataParser {
  private TableMetadataParser() {}

  /** A key given twice is an error: readers that keep the first and the last would see two tables. */
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  static final String FORMAT_VERSION = "format-version";
  static final String TABLE_UUID = "table-uuid";
  static final String LOCATION = "location";
  static final String LAST_SEQUENCE_NUMBER = "last-sequence-number";
  static final String LAST_UPDATED_MS = "last-updated-ms";
  static final String LAST_COLUMN_ID = "last-column-id";
  static final String SCHEMA = "schema";
  static final String SCHEMAS = "schemas";
  static final String CURRENT_SCHEMA_ID = "current-schema-id";
  static final String PARTITION_SPEC = "partition-spec";
  static final String PARTITION_SPECS = "partition-specs";
  static final String DEFAULT_SPEC_ID = "default-spec-id";
  static final String LAST_PARTITION_ID = "last-partition-id";
  static final String DEFAULT_SORT_ORDER_ID = "default-sort-order-id";
  static final String SORT_ORDERS = "sort-orders";
  static final String PROPERTIES = "properties";
  static final String CURRENT_SNAPSHOT_ID = "current-snapshot-id";
  static final String NEXT_ROW_ID = "next-row-id";
  static final String REFS = "refs";
  static final String SNAPSHOTS = "snapshots";
  static final String STATISTICS = "statistics";
  static final String PARTITION_STATISTICS = "partition-statistics";
  static final String SNAPSHOT_LOG = "snapshot-log";
  static final String METADATA_LOG = "metadata-log";
  static final String TIMESTAMP_MS = "timestamp-ms";
  static final String SNAPSHOT_ID = "snapshot-id";
  static final String METADATA_FILE = "metadata-file";
  static final String COMMIT_ID = "floe-commit-id";

  public static String toJson(TableMetadata metadata) {
    return JsonUtil.generate(gen -> toJson(metadata, gen));
  }

  /**
   * The JSON as UTF-8 bytes, the same as {@code toJson(metadata).getBytes(UTF_8)}, generated straight
   * into bytes: no intermediate String, which for a large table is most of the cost of writing it;
   * snapshots written before are copied from their kept JSON.
   */
  public static byte[] toJsonBytes(TableMetadata metadata) {
    try {
      return JsonUtil.generateBytes(gen -> toJson(metadata, gen, true), 64 * 1024);
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException("Cannot write metadata JSON", e.getCause());
    }
  }

  public static void toJson(TableMetadata m, JsonGenerator gen) throws IOException {
    toJson(m, gen, false);
  }

  /**
   * {@code keptSnapshots}: each snapshot's JSON is taken from what was written for it before (see
   * {@link SnapshotParser#toJsonKept}), the same bytes: what a commit writes, where the snapshots
   * but one are the previous metadata's.
   */
  private static void toJson(TableMetadata m, JsonGenerator gen, boolean keptSnapshots) throws IOException {
    int v = m.formatVersion();
    gen.writeStartObject();
    gen.writeNumberField(FORMAT_VERSION, v);
    if (m.uuid() != null) {
      gen.writeStringField(TABLE_UUID, m.uuid());
    }
    gen.writeStringField(LOCATION, m.location());
    if (v > 1) {
      gen.writeNumberField(LAST_SEQUENCE_NUMBER, m.lastSequenceNumber());
    }
    gen.writeNumberField(LAST_UPDATED_MS, m.lastUpdatedMillis());
    gen.writeNumberField(LAST_COLUMN_ID, m.lastColumnId());
    if (v == 1) {
      gen.writeFieldName(SCHEMA);
      SchemaParser.toJson(m.schema(), gen);
    }
    gen.writeNumberField(CURRENT_SCHEMA_ID, m.currentSchemaId());
    gen.writeArrayFieldStart(SCHEMAS);
    for (Schema schema : m.schemas()) {
      SchemaParser.toJson(schema, gen);
    }
    gen.writeEndArray();
    if (v == 1) {
      gen.writeFieldName(PARTITION_SPEC);
      PartitionSpecParser.fieldsToJson(m.spec(), gen);
    }
    gen.writeNumberField(DEFAULT_SPEC_ID, m.defaultSpecId());
    gen.writeArrayFieldStart(PARTITION_SPECS);
    for (PartitionSpec spec : m.specs()) {
      PartitionSpecParser.toJson(spec, gen);
    }
    gen.writeEndArray();
    gen.writeNumberField(LAST_PARTITION_ID, m.lastAssignedPartitionId());
    gen.writeNumberField(DEFAULT_SORT_ORDER_ID, m.defaultSortOrderId());
    gen.writeArrayFieldStart(SORT_ORDERS);
    for (SortOrder order : m.sortOrders()) {
      SortOrderParser.toJson(order, gen);
    }
    gen.writeEndArray();
    JsonUtil.writeStringMap(PROPERTIES, m.properties(), gen);
    if (m.currentSnapshot() != null) {
      gen.writeNumberField(CURRENT_SNAPSHOT_ID, m.currentSnapshot().snapshotId());
    } else if (v >= 3) {
      gen.writeNullField(CURRENT_SNAPSHOT_ID);
    } else {
      gen.writeNumberField(CURRENT_SNAPSHOT_ID, TableMetadata.NO_SNAPSHOT);
    }
    if (v >= 3) {
      gen.writeNumberField(NEXT_ROW_ID, m.nextRowId());
    }
    gen.writeObjectFieldStart(REFS);
    for (Map.Entry<String, SnapshotRef> e : m.refs().entrySet()) {
      gen.writeFieldName(e.getKey());
      SnapshotRefParser.toJson(e.getValue(), gen);
    }
    gen.writeEndObject();
    gen.writeArrayFieldStart(SNAPSHOTS);
    for (Snapshot snapshot : m.snapshots()) {
      if (keptSnapshots) {
        SnapshotParser.toJsonKept(snapshot, gen);
      } else {
        SnapshotParser.toJson(snapshot, gen);
      }
    }
    gen.writeEndArray();
    gen.writeArrayFieldStart(STATISTICS);
    for (StatisticsFile file : m.statisticsFiles()) {
      StatisticsFileParser.toJson(file, gen);
    }
    gen.writeEndArray();
    gen.writeArrayFieldStart(PARTITION_STATISTICS);
    for (PartitionStatisticsFile file : m.partitionStatisticsFiles()) {
      StatisticsFileParser.toJson(file, gen);
    }
    gen.writeEndArray();
    gen.writeArrayFieldStart(SNAPSHOT_LOG);
    for (SnapshotLogEntry entry : m.snapshotLog()) {
      gen.writeStartObject();
      gen.writeNumberField(TIMESTAMP_MS, entry.timestampMillis());
      gen.writeNumberField(SNAPSHOT_ID, entry.snapshotId());
      gen.writeEndObject();
    }
    gen.writeEndArray();
    gen.writeArrayFieldStart(METADATA_LOG);
    for (MetadataLogEntry entry : m.previousFiles()) {
      gen.writeStartObject();
      gen.writeNumberField(TIMESTAMP_MS, entry.timestampMillis());
      gen.writeStringField(METADATA_FILE, entry.file());
      gen.writeEndObject();
    }
    gen.writeEndArray();
    if (m.commitId() != null) {
      gen.writeStringField(COMMIT_ID, m.commitId());
    }
    gen.writeEndObject();
  }

  /** Writes the metadata to a new file (gzip when the name has {@code .gz.}); fails if it exists. */
  public static void write(TableMetadata metadata, OutputFile out) {
    byte[] json = toJsonBytes(metadata);
    try (OutputStream stream = out.create();
        OutputStream target = isGzip(out.location()) ? new GZIPOutputStream(stream) : stream) {
      target.write(json);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write metadata file " + out.location(), e);
    }
  }

  /** Reads a metadata file; the result's {@link TableMetadata#metadataFileLocation()} is {@code location}. */
  public static TableMetadata read(FileIO io, String location) {
    return fromJson(location, readJsonBytes(io, location));
  }

  /** The JSON bytes of a metadata file, unzipped when the name says gzip; nothing is parsed. */
  public static byte[] readJsonBytes(FileIO io, String location) {
    InputFile in = io.newInputFile(location);
    if (!isGzip(location)) {
      try (InputStream stream = in.newStream()) {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read metadata file " + location, e);
      }
    }
    byte[] compressed;
    try (InputStream stream = in.newStream()) {
      compressed = stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read metadata file " + location, e);
    }
    return gunzip(location, compressed);
  }

  /**
   * The unzipped JSON, at most {@link #GZIP_RATIO_LIMIT} times the compressed size (at least 64 MiB):
   * metadata JSON compresses about 10 times, and a crafted file can expand a thousand times.
   */
  private static byte[] gunzip(String location, byte[] compressed) {
    long limit = Math.min(Integer.MAX_VALUE - 8, Math.max(64L << 20, GZIP_RATIO_LIMIT * (long) compressed.length));
    try (InputStream source = new GZIPInputStream(new java.io.ByteArrayInputStream(compressed))) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(compressed.length * 4);
      byte[] buffer = new byte[8192];
      for (int n = source.read(buffer); n >= 0; n = source.read(buffer)) {
        if (n > limit - out.size()) {
          throw error(location, "gzip data expands past " + limit + " bytes (" + GZIP_RATIO_LIMIT
              + " times the file), more than table metadata holds", null);
        }
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw error(location, "the name says gzip, but the file is not valid gzip (" + e.getMessage() + ")", e);
    }
  }

  /** Parses metadata JSON read from {@code location} (named in errors; may be null for in-memory JSON). */
  public static TableMetadata fromJson(String location, String json) {
    return fromJson(location, json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Parses UTF-8 metadata JSON read from {@code location}. Jackson reads the bytes directly: decoding
   * a large file into a String first would copy it twice for nothing.
   */
  public static TableMetadata fromJson(String location, byte[] json) {
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (IOException e) {
      // where, not what: the parser's message quotes the file's bytes, which may not be metadata at all
      String where = e instanceof com.fasterxml.jackson.core.JsonProcessingException
          && ((com.fasterxml.jackson.core.JsonProcessingException) e).getLocation() != null
          ? " at line " + ((com.fasterxml.jackson.core.JsonProcessingException) e).getLocation().getLineNr()
              + ", column " + ((com.fasterxml.jackson.core.JsonProcessingException) e).getLocation().getColumnNr()
          : "";
      String duplicate = e instanceof com.fasterxml.jackson.core.JsonProcessingException
          && ((com.fasterxml.jackson.core.JsonProcessingException) e).getOriginalMessage().startsWith("Duplicate field")
          ? ": " + ((com.fasterxml.jackson.core.JsonProcessingException) e).getOriginalMessage() : "";
      throw error(location, "invalid JSON" + where + duplicate
          + " (not a table metadata file, or a damaged one)", null);
    }
    if (node == null || !node.isObject()) {
      throw error(location, "not a JSON object", null);
    }
    try {
      return MetadataReader.read(node).buildExact(location);
    } catch (IllegalArgumentException e) {
      throw error(location, e.getMessage(), e);
    }
  }

  public static TableMetadata fromJson(String json) {
    return fromJson(null, json);
  }

  /** A metadata file that is not valid metadata: a corrupt file (FLOE_FILE_INVALID) naming it. */
  private static FloeFormatException error(String location, String problem, Exception cause) {
    return new FloeFormatException("Cannot parse metadata file " + location + ": " + problem, cause);
  }

  private static final int GZIP_RATIO_LIMIT = 100;

  private static boolean isGzip(String location) {
    return location.endsWith(".gz.metadata.json") || location.endsWith(".metadata.json.gz");
  }
}
