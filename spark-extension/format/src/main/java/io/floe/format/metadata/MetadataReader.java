package io.floe.format.metadata;

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
    int v = Json.getInt(node, FORMAT_VERSION);
    if (v < TableMetadata.MIN_FORMAT_VERSION || v > TableMetadata.MAX_FORMAT_VERSION) {
      throw new IllegalArgumentException("unsupported format-version " + v + " (supported: "
          + TableMetadata.MIN_FORMAT_VERSION + " to " + TableMetadata.MAX_FORMAT_VERSION + ")");
    }
    b.formatVersion = v;
    b.uuid = v > 1 ? Json.getString(node, TABLE_UUID) : Json.getStringOrNull(node, TABLE_UUID);
    b.location = TableMetadataBuilder.stripTrailingSlash(Json.getString(node, LOCATION));
    b.lastSequenceNumber = v > 1 || !Json.isAbsent(node, LAST_SEQUENCE_NUMBER)
        ? Json.getLong(node, LAST_SEQUENCE_NUMBER) : 0;
    b.lastUpdatedMillis = Json.getLong(node, LAST_UPDATED_MS);
    b.lastColumnId = Json.getInt(node, LAST_COLUMN_ID);
    readSchemas(node, b);
    readSpecs(node, b);
    readSortOrders(node, b);
    b.properties = Json.getStringMap(node, PROPERTIES);
    Long current = Json.getLongOrNull(node, CURRENT_SNAPSHOT_ID);
    b.currentSnapshotId = current == null || current < 0 ? TableMetadata.NO_SNAPSHOT : current;
    b.nextRowId = v >= 3 ? Json.getLong(node, NEXT_ROW_ID) : 0;
    b.snapshots = Json.getList(node, SNAPSHOTS, SnapshotParser::fromJson);
    readRefs(node, b);
    b.statisticsFiles = Json.getList(node, STATISTICS, StatisticsFileParser::fromJson);
    b.partitionStatisticsFiles = Json.getList(node, PARTITION_STATISTICS,
        StatisticsFileParser::partitionStatisticsFromJson);
    b.snapshotLog = Json.getList(node, SNAPSHOT_LOG,
        e -> new SnapshotLogEntry(Json.getLong(e, TIMESTAMP_MS), Json.getLong(e, SNAPSHOT_ID)));
    b.previousFiles = Json.getList(node, METADATA_LOG,
        e -> new MetadataLogEntry(Json.getLong(e, TIMESTAMP_MS), Json.getString(e, METADATA_FILE)));
    b.commitId = Json.getStringOrNull(node, COMMIT_ID);
    return b;
  }

  private static void readSchemas(JsonNode node, TableMetadataBuilder b) {
    if (!Json.isAbsent(node, SCHEMAS) || b.formatVersion > 1) {
      Json.required(node, SCHEMAS);
      b.schemas = Json.getList(node, SCHEMAS, SchemaParser::fromJson);
      b.currentSchemaId = Json.getInt(node, CURRENT_SCHEMA_ID);
    } else {
      Schema schema = SchemaParser.fromJson(Json.required(node, SCHEMA));
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
    if (!Json.isAbsent(node, PARTITION_SPECS) || b.formatVersion > 1) {
      Json.required(node, PARTITION_SPECS);
      b.specs = Json.getList(node, PARTITION_SPECS, spec -> PartitionSpecParser.fromJson(schema, spec));
      b.defaultSpecId = Json.getInt(node, DEFAULT_SPEC_ID);
    } else {
      ObjectNode spec = JsonNodeFactory.instance.objectNode();
      spec.put("spec-id", 0);
      spec.set("fields", Json.required(node, PARTITION_SPEC));
      b.specs.add(PartitionSpecParser.fromJson(schema, spec));
      b.defaultSpecId = 0;
    }
    if (b.formatVersion > 1 || !Json.isAbsent(node, LAST_PARTITION_ID)) {
      b.lastAssignedPartitionId = Json.getInt(node, LAST_PARTITION_ID);
    } else {
      b.lastAssignedPartitionId = b.specs.stream().mapToInt(PartitionSpec::lastAssignedFieldId).max()
          .orElse(PartitionSpec.PARTITION_DATA_ID_START - 1);
    }
  }

  private static void readSortOrders(JsonNode node, TableMetadataBuilder b) {
    if (!Json.isAbsent(node, SORT_ORDERS) || b.formatVersion > 1) {
      Json.required(node, SORT_ORDERS);
      b.sortOrders = Json.getList(node, SORT_ORDERS, SortOrderParser::fromJson);
      b.defaultSortOrderId = Json.getInt(node, DEFAULT_SORT_ORDER_ID);
    } else {
      b.sortOrders.add(SortOrder.unsorted());
      b.defaultSortOrderId = SortOrder.UNSORTED_ORDER_ID;
    }
  }

  private static void readRefs(JsonNode node, TableMetadataBuilder b) {
    if (!Json.isAbsent(node, REFS)) {
      JsonNode refs = node.get(REFS);
      if (!refs.isObject()) {
        throw Json.invalid(REFS, "an object", refs);
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
