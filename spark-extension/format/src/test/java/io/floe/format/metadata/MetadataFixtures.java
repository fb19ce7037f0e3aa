package io.floe.format.metadata;

import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Schemas, snapshots and fixture files shared by the metadata tests. */
final class MetadataFixtures {
  private MetadataFixtures() {}

  static final String LOCATION = "file:/warehouse/db/t";

  /** Caller ids on purpose far from what table creation assigns. */
  static Schema nestedSchema() {
    return new Schema(
        Types.NestedField.required(100, "id", Types.LongType.get()),
        Types.NestedField.optional(101, "point", Types.StructType.of(
            Types.NestedField.required(102, "x", Types.DoubleType.get()),
            Types.NestedField.required(103, "y", Types.DoubleType.get()))),
        Types.NestedField.optional(104, "tags", Types.ListType.ofOptional(105, Types.StringType.get())),
        Types.NestedField.optional(106, "attrs", Types.MapType.ofOptional(107, 108, Types.StringType.get(),
            Types.StructType.of(Types.NestedField.optional(109, "a", Types.IntegerType.get())))),
        Types.NestedField.optional(110, "name", Types.StringType.get(), "display name"),
        Types.NestedField.optional(111, "price", Types.DecimalType.of(9, 2)));
  }

  static TableMetadata newTable(int formatVersion) {
    return TableMetadata.newTableMetadata(nestedSchema(), PartitionSpec.unpartitioned(), SortOrder.unsorted(),
        LOCATION, Map.of(), formatVersion);
  }

  static TableMetadata newPartitionedTable(int formatVersion) {
    Schema schema = nestedSchema();
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("name").bucket("id", 16).build();
    SortOrder order = SortOrder.builderFor(schema).desc("name").asc("id").build();
    return TableMetadata.newTableMetadata(schema, spec, order, LOCATION + "/", Map.of("owner", "floe"), formatVersion);
  }

  static Snapshot snapshot(TableMetadata base, long id, String operation) {
    Snapshot parent = base.currentSnapshot();
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put("operation", operation);
    summary.put("added-data-files", "1");
    summary.put("added-records", "10");
    summary.put("total-records", "10");
    summary.put("custom.key", "kept as is");
    Snapshot.Builder b = Snapshot.builder()
        .snapshotId(id)
        .parentId(parent == null ? null : parent.snapshotId())
        .sequenceNumber(base.nextSequenceNumber())
        .timestampMillis(base.lastUpdatedMillis() + 1)
        .manifestListLocation(base.location() + "/metadata/snap-" + id + "-1-x.avro")
        .summary(summary)
        .schemaId(base.currentSchemaId());
    if (base.formatVersion() >= 3) {
      b.firstRowId(base.nextRowId()).addedRows(10L);
    }
    return b.build();
  }

  /** Adds a snapshot and makes it current. */
  static TableMetadata commit(TableMetadata base, long id) {
    return TableMetadata.buildFrom(base).setBranchSnapshot(snapshot(base, id, DataOperations.APPEND), "main").build();
  }

  static String resource(String name) {
    try (InputStream in = MetadataFixtures.class.getResourceAsStream("/metadata/" + name)) {
      if (in == null) {
        throw new IllegalStateException("Missing test resource /metadata/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> topLevelKeys(String json) {
    List<String> keys = new java.util.ArrayList<>();
    io.floe.format.util.JsonUtil.parse(json).fieldNames().forEachRemaining(keys::add);
    return keys;
  }
}
