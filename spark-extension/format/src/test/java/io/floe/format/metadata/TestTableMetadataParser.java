package io.floe.format.metadata;

import static io.floe.format.metadata.MetadataFixtures.commit;
import static io.floe.format.metadata.MetadataFixtures.newPartitionedTable;
import static io.floe.format.metadata.MetadataFixtures.newTable;
import static io.floe.format.metadata.MetadataFixtures.topLevelKeys;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.floe.format.FloeFormatException;
import io.floe.format.io.LocalFileIO;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import io.floe.format.util.JsonUtil;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestTableMetadataParser {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static final List<String> V2_KEYS = List.of("format-version", "table-uuid", "location",
      "last-sequence-number", "last-updated-ms", "last-column-id", "current-schema-id", "schemas",
      "default-spec-id", "partition-specs", "last-partition-id", "default-sort-order-id", "sort-orders",
      "properties", "current-snapshot-id", "refs", "snapshots", "statistics", "partition-statistics",
      "snapshot-log", "metadata-log");

  /** Several schemas with nested types, two specs, snapshots, refs, statistics and a metadata log. */
  private static TableMetadata richMetadata(int formatVersion) {
    TableMetadata v1 = newPartitionedTable(formatVersion).withMetadataFileLocation(MetadataFixtures.LOCATION
        + "/metadata/v1.metadata.json");
    Schema evolved = new Schema(0, List.of(
        v1.schema().columns().get(0), v1.schema().columns().get(1), v1.schema().columns().get(2),
        v1.schema().columns().get(3), v1.schema().columns().get(4), v1.schema().columns().get(5),
        Types.NestedField.optional(13, "events", Types.ListType.ofRequired(14, Types.StructType.of(
            Types.NestedField.required(15, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(16, "code", Types.FixedType.ofLength(4)))))), java.util.Set.of(1));
    TableMetadata withSchema = TableMetadata.buildFrom(v1).setCurrentSchema(evolved, 16)
        .addPartitionSpec(PartitionSpec.builderFor(evolved).identity("name").truncate("id", 100).build())
        .setDefaultPartitionSpec(-1)
        .build().withMetadataFileLocation(MetadataFixtures.LOCATION + "/metadata/v2.metadata.json");
    TableMetadata one = commit(withSchema, 1001L).withMetadataFileLocation(MetadataFixtures.LOCATION
        + "/metadata/v3.metadata.json");
    TableMetadata two = commit(one, 1002L);
    StatisticsFile stats = new StatisticsFile(1002L, MetadataFixtures.LOCATION + "/metadata/1002-u.stats", 900, 300,
        ByteBuffer.wrap(new byte[] {1, 2, 3}), List.of(
            new StatisticsBlobMetadata("apache-datasketches-theta-v1", 1002L, two.lastSequenceNumber(), List.of(1),
                Map.of("ndv", "10")),
            new StatisticsBlobMetadata("apache-datasketches-theta-v1", 1002L, two.lastSequenceNumber(), List.of(5, 6),
                Map.of())));
    return TableMetadata.buildFrom(two)
        .setRef("audit", SnapshotRef.builderFor(1001L, SnapshotRefType.BRANCH).minSnapshotsToKeep(3)
            .maxSnapshotAgeMs(86_400_000L).maxRefAgeMs(604_800_000L).build())
        .setRef("release-1", SnapshotRef.builderFor(1001L, SnapshotRefType.TAG).maxRefAgeMs(1000L).build())
        .setStatistics(stats)
        .setPartitionStatistics(
            new PartitionStatisticsFile(1002L, MetadataFixtures.LOCATION + "/metadata/p.parquet", 77))
        .setProperties(Map.of("write.delete.mode", "merge-on-read"))
        .withCommitId("commit-42")
        .build();
  }

  private static TableMetadata roundTrip(TableMetadata metadata) {
    return TableMetadataParser.fromJson("file:/x/v9.metadata.json", TableMetadataParser.toJson(metadata));
  }

  @Test
  public void richMetadataRoundTripsExactly() {
    for (int version : new int[] {1, 2, 3}) {
      TableMetadata original = richMetadata(version);
      String json = TableMetadataParser.toJson(original);
      TableMetadata parsed = roundTrip(original);
      assertEquals("v" + version, json, TableMetadataParser.toJson(parsed));
      assertEquals(original.schemas(), parsed.schemas());
      assertEquals(original.specs(), parsed.specs());
      assertEquals(original.sortOrders(), parsed.sortOrders());
      assertEquals(original.snapshots(), parsed.snapshots());
      assertEquals(original.refs(), parsed.refs());
      assertEquals(original.statisticsFiles(), parsed.statisticsFiles());
      assertEquals(original.partitionStatisticsFiles(), parsed.partitionStatisticsFiles());
      assertEquals(original.snapshotLog(), parsed.snapshotLog());
      assertEquals(original.previousFiles(), parsed.previousFiles());
      assertEquals(original.properties(), parsed.properties());
      assertEquals(original.lastUpdatedMillis(), parsed.lastUpdatedMillis());
      assertEquals(original.lastSequenceNumber(), parsed.lastSequenceNumber());
      assertEquals(original.nextRowId(), parsed.nextRowId());
      assertEquals("commit-42", parsed.commitId());
      assertEquals("file:/x/v9.metadata.json", parsed.metadataFileLocation());
    }
  }

  @Test
  public void richMetadataHasWhatWasBuilt() {
    TableMetadata m = roundTrip(richMetadata(2));
    assertEquals(2, m.schemas().size());
    assertEquals(1, m.currentSchemaId());
    assertEquals(16, m.lastColumnId());
    assertEquals(1, m.defaultSpecId());
    assertEquals(1002, m.lastAssignedPartitionId());
    assertEquals("[1000: name: identity(5), 1002: id_trunc: truncate[100](1)]", m.spec().toString());
    assertEquals(1002L, m.currentSnapshot().snapshotId());
    assertEquals(Long.valueOf(1001L), m.currentSnapshot().parentId());
    assertEquals("kept as is", m.currentSnapshot().summary().get("custom.key"));
    assertEquals(DataOperations.APPEND, m.currentSnapshot().operation());
    assertEquals(3, m.refs().size());
    assertTrue(m.ref("release-1").isTag());
    assertEquals(Integer.valueOf(3), m.ref("audit").minSnapshotsToKeep());
    assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), m.statisticsFiles().get(0).keyMetadata());
    assertEquals("10", m.statisticsFiles().get(0).blobMetadata().get(0).properties().get("ndv"));
    assertEquals(List.of(5, 6), m.statisticsFiles().get(0).blobMetadata().get(1).fields());
    assertEquals(3, m.previousFiles().size());
    assertEquals(MetadataFixtures.LOCATION + "/metadata/v1.metadata.json", m.previousFiles().get(0).file());
    assertEquals(2, m.snapshotLog().size());
    assertEquals(Types.FixedType.ofLength(4), m.schema().findType(16));
  }

  @Test
  public void v2KeysInReferenceOrderAndAlwaysWrittenLists() {
    String json = TableMetadataParser.toJson(newTable(2));
    assertEquals(V2_KEYS, topLevelKeys(json));
    JsonNode node = JsonUtil.parse(json);
    assertEquals(-1L, node.get("current-snapshot-id").longValue());
    assertEquals(999, node.get("last-partition-id").intValue());
    assertEquals("{\"order-id\":0,\"fields\":[]}", node.get("sort-orders").get(0).toString());
    assertEquals(0, node.get("default-sort-order-id").intValue());
    assertEquals("{}", node.get("refs").toString());
    for (String list : List.of("snapshots", "statistics", "partition-statistics", "snapshot-log", "metadata-log")) {
      assertEquals(list, 0, node.get(list).size());
    }
  }

  @Test
  public void v3WritesNullCurrentSnapshotAndNextRowId() {
    JsonNode node = JsonUtil.parse(TableMetadataParser.toJson(newTable(3)));
    assertTrue(node.has("current-snapshot-id"));
    assertTrue(node.get("current-snapshot-id").isNull());
    assertEquals(0L, node.get("next-row-id").longValue());
    List<String> keys = topLevelKeys(node.toString());
    assertEquals(keys.indexOf("current-snapshot-id") + 1, keys.indexOf("next-row-id"));
  }

  @Test
  public void v3SnapshotsCarryRowLineage() {
    TableMetadata m = commit(commit(newTable(3), 1L), 2L);
    JsonNode node = JsonUtil.parse(TableMetadataParser.toJson(m));
    assertEquals(20L, node.get("next-row-id").longValue());
    JsonNode second = node.get("snapshots").get(1);
    assertEquals(10L, second.get("first-row-id").longValue());
    assertEquals(10L, second.get("added-rows").longValue());
    assertEquals(2L, node.get("current-snapshot-id").longValue());
    assertEquals(20L, roundTrip(m).nextRowId());
  }

  @Test
  public void v2SnapshotsHaveNoRowLineageKeys() {
    JsonNode snap = JsonUtil.parse(TableMetadataParser.toJson(commit(newTable(2), 7L))).get("snapshots").get(0);
    assertFalse(snap.has("first-row-id"));
    assertFalse(snap.has("added-rows"));
    assertFalse(snap.has("parent-snapshot-id"));
    assertEquals(1L, snap.get("sequence-number").longValue());
    assertEquals("append", snap.get("summary").get("operation").asText());
    assertEquals(0, snap.get("schema-id").intValue());
  }

  @Test
  public void v1WritesSingleSchemaAndSpec() {
    List<String> keys = topLevelKeys(TableMetadataParser.toJson(newPartitionedTable(1)));
    assertTrue(keys.contains("schema"));
    assertTrue(keys.contains("partition-spec"));
    assertFalse(keys.contains("last-sequence-number"));
    assertFalse(keys.contains("next-row-id"));
  }

  @Test
  public void mainRefEqualsCurrentSnapshot() {
    JsonNode node = JsonUtil.parse(TableMetadataParser.toJson(commit(commit(newTable(2), 5L), 6L)));
    assertEquals(6L, node.get("current-snapshot-id").longValue());
    assertEquals(6L, node.get("refs").get("main").get("snapshot-id").longValue());
    assertEquals("branch", node.get("refs").get("main").get("type").asText());
  }

  @Test
  public void mainIsSynthesizedWhenRefsAreAbsent() {
    TableMetadata m = parseEdited(TableMetadataParser.toJson(commit(newTable(2), 5L)), n -> n.remove("refs"));
    assertEquals(SnapshotRef.branch(5L), m.ref("main"));
    TableMetadata empty = parseEdited(TableMetadataParser.toJson(newTable(2)), n -> n.remove("refs"));
    assertTrue(empty.refs().isEmpty());
  }

  @Test
  public void commitIdIsWrittenOnlyWhenSet() {
    assertFalse(topLevelKeys(TableMetadataParser.toJson(newTable(2))).contains("floe-commit-id"));
    TableMetadata m = TableMetadata.buildFrom(newTable(2)).withCommitId("abc").build();
    JsonNode node = JsonUtil.parse(TableMetadataParser.toJson(m));
    assertEquals("abc", node.get("floe-commit-id").asText());
    assertEquals("abc", roundTrip(m).commitId());
    assertNull(TableMetadata.buildFrom(m).build().commitId());
  }

  @Test
  public void parsesPyicebergMetadata() {
    String location = "file:///warehouse/db/sales/metadata/00003-aaaa.metadata.json";
    TableMetadata m = TableMetadataParser.fromJson(location, MetadataFixtures.resource("pyiceberg-v2.metadata.json"));
    assertEquals(location, m.metadataFileLocation());
    assertEquals(2, m.formatVersion());
    assertEquals("8aca09a9-2091-431e-9aa6-ae4de336880f", m.uuid());
    assertEquals(Types.DecimalType.of(9, 2), m.schema().findType(3));
    assertEquals(java.util.Set.of(1), m.schema().identifierFieldIds());
    assertEquals(Types.StringType.get(), m.schema().findType(6));
    assertEquals("[1000: region: identity(4)]", m.spec().toString());
    assertTrue(m.sortOrder().isUnsorted());
    Snapshot first = m.snapshot(6150302311718436532L);
    assertNull("pyiceberg's expiry drops the parent id", first.parentId());
    assertEquals(DataOperations.DELETE, first.operation());
    assertEquals(1915117456936275739L, m.currentSnapshot().snapshotId());
    assertEquals("2", m.currentSnapshot().summary().get("total-records"));
    assertEquals(3, m.lastSequenceNumber());
    assertEquals(3, m.previousFiles().size());
    assertTrue(m.properties().isEmpty());
    assertEquals(TableMetadataParser.toJson(m), TableMetadataParser.toJson(roundTrip(m)));
  }

  @Test
  public void parsesJavaV2Metadata() {
    TableMetadata m = TableMetadataParser.fromJson("file:/warehouse/db/events/metadata/v4.metadata.json",
        MetadataFixtures.resource("java-v2.metadata.json"));
    assertEquals(2, m.schemas().size());
    assertEquals("producing system", m.schema().findField("source").doc());
    assertEquals(Types.DecimalType.of(12, 3), m.schema().findType(6));
    assertEquals(Types.TimestampType.withZone(), m.schema().findType(2));
    assertEquals(io.floe.format.types.Type.TypeID.MAP, m.schema().findType(4).typeId());
    assertEquals(2, m.specs().size());
    assertEquals("bucket[16]", m.spec().fields().get(1).transform().toString());
    assertEquals("day", m.spec(0).fields().get(0).transform().toString());
    assertEquals(1001, m.lastAssignedPartitionId());
    SortOrder order = m.sortOrder();
    assertEquals(1, order.orderId());
    assertEquals(SortDirection.DESC, order.fields().get(0).direction());
    assertEquals(NullOrder.NULLS_LAST, order.fields().get(0).nullOrder());
    assertEquals("bucket[16]", order.fields().get(1).transform().toString());
    Snapshot older = m.snapshot(3055729675574597004L);
    assertEquals("dangling parent kept", Long.valueOf(3051729675574597004L), older.parentId());
    assertNull(m.snapshot(3051729675574597004L));
    assertEquals("Apache Iceberg 1.11.0 (commit 191ef300)", older.summary().get("iceberg-version"));
    assertEquals(Integer.valueOf(2), m.ref("audit").minSnapshotsToKeep());
    assertEquals(Long.valueOf(31536000000L), m.ref("v1.0").maxRefAgeMs());
    assertTrue(m.ref("v1.0").isTag());
    assertEquals("398", m.statisticsFiles().get(0).blobMetadata().get(1).properties().get("ndv"));
    assertEquals(412, m.statisticsFiles().get(0).fileFooterSizeInBytes());
    assertEquals(2048, m.partitionStatisticsFiles().get(0).fileSizeInBytes());
    assertEquals("merge-on-read", m.property(TableProperties.DELETE_MODE, TableProperties.DELETE_MODE_DEFAULT));
    assertEquals(20, m.propertyAsInt(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, 100));
    assertEquals(2, m.snapshotLog().size());
    String json = TableMetadataParser.toJson(m);
    assertEquals(V2_KEYS, topLevelKeys(json));
    assertEquals(json, TableMetadataParser.toJson(roundTrip(m)));
  }

  @Test
  public void parsesJavaV3Metadata() {
    TableMetadata m = TableMetadataParser.fromJson("file:/warehouse/db/lineage/metadata/v3.metadata.json",
        MetadataFixtures.resource("java-v3.metadata.json"));
    assertEquals(3, m.formatVersion());
    assertEquals(150L, m.nextRowId());
    assertEquals(Long.valueOf(100L), m.currentSnapshot().firstRowId());
    assertEquals(Long.valueOf(50L), m.currentSnapshot().addedRows());
    assertEquals(999, m.lastAssignedPartitionId());
    assertTrue(m.spec().isUnpartitioned());
    TableMetadata next = TableMetadata.buildFrom(m)
        .setBranchSnapshot(MetadataFixtures.snapshot(m, 9L, "append"), "main").build();
    assertEquals(Long.valueOf(150L), next.currentSnapshot().firstRowId());
    assertEquals(160L, next.nextRowId());
  }

  @Test
  public void missingFieldNamesFieldAndFile() {
    String json = TableMetadataParser.toJson(newTable(2));
    assertError("file:/t/metadata/v3.metadata.json", edit(json, n -> n.remove("last-column-id")),
        "Cannot parse metadata file file:/t/metadata/v3.metadata.json: missing field: last-column-id");
    assertError("f.json", edit(json, n -> n.remove("table-uuid")),
        "Cannot parse metadata file f.json: missing field: table-uuid");
    assertError("f.json", edit(json, n -> n.remove("last-sequence-number")), "missing field: last-sequence-number");
    assertError("f.json", edit(json, n -> n.remove("schemas")), "missing field: schemas");
    assertError("f.json", edit(json, n -> n.remove("partition-specs")), "missing field: partition-specs");
    assertError("f.json", edit(json, n -> n.remove("last-partition-id")), "missing field: last-partition-id");
    assertError("f.json", edit(json, n -> n.remove("sort-orders")), "missing field: sort-orders");
    assertError("f.json", edit(json, n -> n.remove("format-version")), "missing field: format-version");
    assertError("f.json", edit(TableMetadataParser.toJson(newTable(3)), n -> n.remove("next-row-id")),
        "Cannot parse metadata file f.json: missing field: next-row-id");
  }

  @Test
  public void missingNestedFieldNamesItsPlace() {
    String json = TableMetadataParser.toJson(commit(commit(newTable(2), 1L), 2L));
    assertError("f.json", edit(json, n -> ((ObjectNode) n.get("snapshots").get(1)).remove("manifest-list")),
        "Cannot parse metadata file f.json: in snapshots[1]: missing field: manifest-list");
    assertError("f.json", edit(json, n -> ((ObjectNode) n.get("refs").get("main")).remove("snapshot-id")),
        "Cannot parse metadata file f.json: in refs.main: missing field: snapshot-id");
    assertError("f.json", edit(json, n -> ((ObjectNode) n.get("snapshot-log").get(0)).remove("timestamp-ms")),
        "in snapshot-log[0]: missing field: timestamp-ms");
  }

  @Test
  public void invalidValuesAndBadJsonNameTheFile() {
    String json = TableMetadataParser.toJson(newTable(2));
    assertError("file:/t/v1.metadata.json", json.substring(0, json.length() / 2),
        "Cannot parse metadata file file:/t/v1.metadata.json: invalid JSON");
    assertError("f.json", "[1, 2]", "Cannot parse metadata file f.json: not a JSON object");
    assertError("f.json", edit(json, n -> n.put("last-updated-ms", "yesterday")),
        "Cannot parse metadata file f.json: invalid field last-updated-ms: expected a long, found \"yesterday\"");
    assertError("f.json", edit(json, n -> n.put("format-version", 4)), "unsupported format-version 4");
    assertError("f.json", edit(json, n -> n.put("current-snapshot-id", 12345L)),
        "current-snapshot-id 12345 is not in snapshots");
    assertError("f.json", edit(json, n -> n.put("current-schema-id", 7)), "no schema has id 7");
  }

  @Test
  public void inconsistentRefsAreRejected() {
    String json = TableMetadataParser.toJson(commit(commit(newTable(2), 1L), 2L));
    assertError("f.json", edit(json, n -> ((ObjectNode) n.get("refs").get("main")).put("snapshot-id", 1L)),
        "branch main must point to current snapshot 2");
    assertError("f.json", edit(json, n -> n.put("current-snapshot-id", -1)), "there is no current snapshot");
    assertError("f.json", edit(json, n -> ((ObjectNode) n.get("refs").get("main")).put("snapshot-id", 77L)),
        "ref main points to snapshot 77");
    assertError("f.json", edit(json, n -> n.put("last-sequence-number", 1)),
        "has sequence number 2, greater than last-sequence-number 1");
  }

  @Test
  public void toleratesMissingOptionalKeys() {
    String json = TableMetadataParser.toJson(commit(newTable(2), 1L));
    TableMetadata m = parseEdited(json, n -> {
      for (String key : List.of("properties", "refs", "statistics", "partition-statistics", "snapshot-log",
          "metadata-log")) {
        n.remove(key);
      }
      ObjectNode snapshot = (ObjectNode) n.get("snapshots").get(0);
      snapshot.remove("schema-id");
      ((ObjectNode) snapshot.get("summary")).remove("operation");
    });
    assertEquals(DataOperations.OVERWRITE, m.currentSnapshot().operation());
    assertNull(m.currentSnapshot().schemaId());
    assertEquals("kept as is", m.currentSnapshot().summary().get("custom.key"));
    assertTrue(m.snapshotLog().isEmpty());
    assertEquals(SnapshotRef.branch(1L), m.ref("main"));
  }

  @Test
  public void writeAndReadThroughFileIO() throws Exception {
    File dir = temp.newFolder("t");
    String location = dir.toURI().toString() + "metadata/v1.metadata.json";
    TableMetadata m = commit(newTable(2), 3L);
    TableMetadataParser.write(m, new LocalFileIO().newOutputFile(location));
    TableMetadata read = TableMetadataParser.read(new LocalFileIO(), location);
    assertEquals(location, read.metadataFileLocation());
    assertEquals(TableMetadataParser.toJson(m), TableMetadataParser.toJson(read));
    String onDisk = Files.readString(new File(dir, "metadata/v1.metadata.json").toPath());
    assertEquals(TableMetadataParser.toJson(m), onDisk);
    try {
      TableMetadataParser.write(m, new LocalFileIO().newOutputFile(location));
      fail("expected an error for an existing file");
    } catch (java.io.UncheckedIOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(location));
    }
  }

  @Test
  public void gzipMetadataIsReadAndWritten() throws Exception {
    String location = temp.newFolder("g").toURI() + "v1.gz.metadata.json";
    TableMetadata m = newTable(2);
    TableMetadataParser.write(m, new LocalFileIO().newOutputFile(location));
    byte[] head = Files.readAllBytes(LocalFileIO.toPath(location));
    assertEquals((byte) 0x1f, head[0]);
    assertEquals(TableMetadataParser.toJson(m),
        TableMetadataParser.toJson(TableMetadataParser.read(new LocalFileIO(), location)));
  }

  private static String edit(String json, Consumer<ObjectNode> change) {
    ObjectNode node = (ObjectNode) JsonUtil.parse(json);
    change.accept(node);
    return node.toString();
  }

  private static TableMetadata parseEdited(String json, Consumer<ObjectNode> change) {
    return TableMetadataParser.fromJson("edited.json", edit(json, change));
  }

  private static void assertError(String location, String json, String expected) {
    try {
      TableMetadataParser.fromJson(location, json);
      fail("expected an error containing: " + expected);
    } catch (FloeFormatException e) {
      assertTrue("message was: " + e.getMessage(), e.getMessage().contains(expected));
      assertTrue("message names the file: " + e.getMessage(),
          e.getMessage().startsWith("Cannot parse metadata file " + location + ": "));
    }
  }
}
