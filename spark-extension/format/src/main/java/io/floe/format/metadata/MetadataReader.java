package io.floe.format.metadata;

import io.floe.format.util.JsonUtil;
import static io.floe.format.metadata.TableMetadataParser.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.PartitionSpecParser;
import io.floe.format.types.Schema;
import io.floe.format.types.SchemaParser;
import java.util.Iterator;

/**
 * Fills a {@link TableMetadataBuilder} from a metadata JSON object, applying the per-version rules:
 * v2+ requires table-uuid, last-sequence-number, schemas, partition-specs, last-partition-id and
 * sort-orders; v3 requires next-row-id; v1 may use the single schema and partition-spec keys.
 * Optional lists that are absent are empty; absent refs get a synthesized main branch.
 */
final class MetadataReader {
  private MetadataReader() {}

  static TableMetadataBuilder read(JsonNode node) {
    TableMetadataBuilder b = new TableMetadataBuilder();
    int v = JsonUtil.getInt(FORMAT_VERSION, node);
    if (v < TableMetadata.MIN_FORMAT_VERSION || v > TableMetadata.MAX_FORMAT_VERSION) {
      throw new IllegalArgumentException("unsupported format-version " + v + " (supported: "
          + TableMetadata.MIN_FORMAT_VERSION + " to " + TableMetadata.MAX_FORMAT_VERSION + ")");
    }
    b.formatVersion = v;
    b.uuid = v > 1 ? JsonUtil.getString(TABLE_UUID, node) : JsonUtil.getStringOrNull(TABLE_UUID, node);
    b.location = TableMetadataBuilder.stripTrailingSlash(JsonUtil.getString(LOCATION, node));
    b.lastSequenceNumber = v > 1 || !JsonUtil.isAbsent(LAST_SEQUENCE_NUMBER, node)
        ? JsonUtil.getLong(LAST_SEQUENCE_NUMBER, node) : 0;
    b.lastUpdatedMillis = JsonUtil.getLong(LAST_UPDATED_MS, node);
    b.lastColumnId = JsonUtil.getInt(LAST_COLUMN_ID, node);
    readSchemas(node, b);
    readSpecs(node, b);
    readSortOrders(node, b);
    b.properties = JsonUtil.getStringMap(PROPERTIES, node);
    Long current = JsonUtil.getLongOrNull(CURRENT_SNAPSHOT_ID, node);
    b.currentSnapshotId = current == null || current < 0 ? TableMetadata.NO_SNAPSHOT : current;
    b.nextRowId = v >= 3 ? JsonUtil.getLong(NEXT_ROW_ID, node) : 0;
    b.snapshots = JsonUtil.getList(SNAPSHOTS, node, SnapshotParser::fromJson);
    readRefs(node, b);
    b.statisticsFiles = JsonUtil.getList(STATISTICS, node, StatisticsFileParser::fromJson);
    b.partitionStatisticsFiles = JsonUtil.getList(PARTITION_STATISTICS, node,
        StatisticsFileParser::partitionStatisticsFromJson);
    b.snapshotLog = JsonUtil.getList(SNAPSHOT_LOG, node,
        e -> new SnapshotLogEntry(JsonUtil.getLong(TIMESTAMP_MS, e), JsonUtil.getLong(SNAPSHOT_ID, e)));
    b.previousFiles = JsonUtil.getList(METADATA_LOG, node,
        e -> new MetadataLogEntry(JsonUtil.getLong(TIMESTAMP_MS, e), JsonUtil.getString(METADATA_FILE, e)));
    b.commitId = JsonUtil.getStringOrNull(COMMIT_ID, node);
    return b;
  }

  private static void readSchemas(JsonNode node, TableMetadataBuilder b) {
    if (!JsonUtil.isAbsent(SCHEMAS, node) || b.formatVersion > 1) {
      JsonUtil.get(SCHEMAS, node);
      b.schemas = JsonUtil.getList(SCHEMAS, node, SchemaParser::fromJson);
      b.currentSchemaId = JsonUtil.getInt(CURRENT_SCHEMA_ID, node);
    } else {
      Schema schema = SchemaParser.fromJson(JsonUtil.get(SCHEMA, node));
      b.schemas.add(schema);
      b.currentSchemaId = schema.schemaId();
    }
  }

  private static Schema currentSchema(TableMetadataBuilder b) {
    for (Schema s : b.schemas) {
      if (s.schemaId() == b.currentSchemaId) {
        return s;
      }
    }
    throw new IllegalArgumentException("invalid field " + CURRENT_SCHEMA_ID + ": no schema has id "
        + b.currentSchemaId);
  }

  private static void readSpecs(JsonNode node, TableMetadataBuilder b) {
    Schema schema = currentSchema(b);
    if (!JsonUtil.isAbsent(PARTITION_SPECS, node) || b.formatVersion > 1) {
      JsonUtil.get(PARTITION_SPECS, node);
      b.specs = JsonUtil.getList(PARTITION_SPECS, node, spec -> PartitionSpecParser.fromJson(schema, spec));
      b.defaultSpecId = JsonUtil.getInt(DEFAULT_SPEC_ID, node);
    } else {
      ObjectNode spec = JsonNodeFactory.instance.objectNode();
      spec.put("spec-id", 0);
      spec.set("fields", JsonUtil.get(PARTITION_SPEC, node));
      b.specs.add(PartitionSpecParser.fromJson(schema, spec));
      b.defaultSpecId = 0;
    }
    if (b.formatVersion > 1 || !JsonUtil.isAbsent(LAST_PARTITION_ID, node)) {
      b.lastAssignedPartitionId = JsonUtil.getInt(LAST_PARTITION_ID, node);
    } else {
      b.lastAssignedPartitionId = b.specs.stream().mapToInt(PartitionSpec::lastAssignedFieldId).max()
          .orElse(PartitionSpec.PARTITION_DATA_ID_START - 1);
    }
  }

  private static void readSortOrders(JsonNode node, TableMetadataBuilder b) {
    if (!JsonUtil.isAbsent(SORT_ORDERS, node) || b.formatVersion > 1) {
      JsonUtil.get(SORT_ORDERS, node);
      b.sortOrders = JsonUtil.getList(SORT_ORDERS, node, SortOrderParser::fromJson);
      b.defaultSortOrderId = JsonUtil.getInt(DEFAULT_SORT_ORDER_ID, node);
    } else {
      b.sortOrders.add(SortOrder.unsorted());
      b.defaultSortOrderId = SortOrder.UNSORTED_ORDER_ID;
    }
  }

  private static void readRefs(JsonNode node, TableMetadataBuilder b) {
    if (!JsonUtil.isAbsent(REFS, node)) {
      JsonNode refs = node.get(REFS);
      if (!refs.isObject()) {
        throw JsonUtil.invalid(REFS, "an object", refs);
      }
      Iterator<String> names = refs.fieldNames();
      while (names.hasNext()) {
        String name = names.next();
        try {
          b.refs.put(name, SnapshotRefParser.fromJson(refs.get(name)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("in " + REFS + "." + name + ": " + e.getMessage(), e);
        }
      }
    }
    if (b.currentSnapshotId != TableMetadata.NO_SNAPSHOT && !b.refs.containsKey(SnapshotRef.MAIN_BRANCH)) {
      b.refs.put(SnapshotRef.MAIN_BRANCH, SnapshotRef.branch(b.currentSnapshotId));
    }
  }
}
