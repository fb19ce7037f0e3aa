package io.floe.format.metadata;

import static io.floe.format.metadata.MetadataFixtures.commit;
import static io.floe.format.metadata.MetadataFixtures.newPartitionedTable;
import static io.floe.format.metadata.MetadataFixtures.newTable;
import static io.floe.format.metadata.MetadataFixtures.snapshot;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Test;

public class TestTableMetadataBuilder {

  @Test
  public void newTableAssignsTopLevelIdsFirstThenChildrenLevelByLevel() {
    TableMetadata m = newTable(2);
    Schema s = m.schema();
    assertEquals(0, s.schemaId());
    String[] expected = {"id", "point", "tags", "attrs", "name", "price",
        "point.x", "point.y", "tags.element", "attrs.key", "attrs.value", "attrs.value.a"};
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], Integer.valueOf(i + 1), s.idFor(expected[i]));
    }
    assertEquals(12, m.lastColumnId());
    assertEquals("display name", s.findField("name").doc());
    assertTrue(s.findField("id").isRequired());
    assertEquals(Types.DecimalType.of(9, 2), s.findType(6));
  }

  @Test
  public void newTableRebuildsSpecAndOrderByColumnName() {
    TableMetadata m = newPartitionedTable(2);
    PartitionSpec spec = m.spec();
    assertEquals(0, spec.specId());
    assertEquals("[1000: name: identity(5), 1001: id_bucket: bucket[16](1)]", spec.toString());
    assertEquals(1001, m.lastAssignedPartitionId());
    SortOrder order = m.sortOrder();
    assertEquals(1, order.orderId());
    assertEquals(5, order.fields().get(0).sourceId());
    assertEquals(SortDirection.DESC, order.fields().get(0).direction());
    assertEquals(NullOrder.NULLS_LAST, order.fields().get(0).nullOrder());
    assertEquals(1, order.fields().get(1).sourceId());
    assertEquals(NullOrder.NULLS_FIRST, order.fields().get(1).nullOrder());
    assertEquals("file:/warehouse/db/t", m.location());
    assertEquals(Map.of("owner", "floe"), m.properties());
  }

  @Test
  public void newUnpartitionedUnsortedTable() {
    TableMetadata m = newTable(2);
    assertEquals(999, m.lastAssignedPartitionId());
    assertTrue(m.spec().fields().isEmpty());
    assertEquals(0, m.defaultSortOrderId());
    assertTrue(m.sortOrder().isUnsorted());
    assertNull(m.currentSnapshot());
    assertTrue(m.refs().isEmpty());
    assertEquals(0, m.lastSequenceNumber());
    assertNull(m.metadataFileLocation());
    assertNotEquals(m.uuid(), newTable(2).uuid());
  }

  @Test
  public void newTableDropsReservedFormatVersionProperty() {
    TableMetadata m = TableMetadata.newTableMetadata(MetadataFixtures.nestedSchema(), null, null, "file:/t",
        Map.of("format-version", "3", "a", "b"), 2);
    assertEquals(2, m.formatVersion());
    assertEquals(Map.of("a", "b"), m.properties());
  }

  @Test
  public void buildAppendsBaseFileToMetadataLog() {
    TableMetadata base = newTable(2);
    assertTrue(TableMetadata.buildFrom(base).build().previousFiles().isEmpty());
    TableMetadata read = base.withMetadataFileLocation("file:/t/metadata/v1.metadata.json");
    TableMetadata next = TableMetadata.buildFrom(read).build();
    assertEquals(List.of(new MetadataLogEntry(base.lastUpdatedMillis(), "file:/t/metadata/v1.metadata.json")),
        next.previousFiles());
    assertNull(next.metadataFileLocation());
  }

  @Test
  public void metadataLogIsTrimmedToPreviousVersionsMax() {
    TableMetadata m = TableMetadata.buildFrom(newTable(2))
        .setProperties(Map.of(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "3")).build();
    List<Long> times = new ArrayList<>();
    for (int v = 1; v <= 6; v++) {
      TableMetadata written = m.withMetadataFileLocation("file:/t/metadata/v" + v + ".metadata.json");
      times.add(written.lastUpdatedMillis());
      m = TableMetadata.buildFrom(written).build();
    }
    assertEquals(3, m.previousFiles().size());
    for (int i = 0; i < 3; i++) {
      MetadataLogEntry entry = m.previousFiles().get(i);
      assertEquals("file:/t/metadata/v" + (i + 4) + ".metadata.json", entry.file());
      assertEquals(times.get(i + 3).longValue(), entry.timestampMillis());
    }
    TableMetadata one = TableMetadata.buildFrom(m.withMetadataFileLocation("file:/t/metadata/v7.metadata.json"))
        .setProperties(Map.of(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "0")).build();
    assertEquals("at least one entry is kept", 1, one.previousFiles().size());
    assertEquals("file:/t/metadata/v7.metadata.json", one.previousFiles().get(0).file());
  }

  @Test
  public void lastUpdatedNeverGoesBackwards() {
    TableMetadata future = TableMetadataParser.fromJson("f.json", TableMetadataParser.toJson(newTable(2))
        .replaceFirst("\"last-updated-ms\":\\d+", "\"last-updated-ms\":" + (System.currentTimeMillis() + 3_600_000L)));
    TableMetadata next = TableMetadata.buildFrom(future).build();
    assertTrue(next.lastUpdatedMillis() >= future.lastUpdatedMillis());
    long before = System.currentTimeMillis();
    assertTrue(TableMetadata.buildFrom(newTable(2)).build().lastUpdatedMillis() >= before);
  }

  @Test
  public void addSnapshotChecksAndSetsSequenceNumber() {
    TableMetadata one = commit(newTable(2), 1L);
    assertEquals(1, one.lastSequenceNumber());
    Snapshot stale = Snapshot.builder().copy(snapshot(one, 2L, "append")).sequenceNumber(1).build();
    expectError(() -> TableMetadata.buildFrom(one).addSnapshot(stale), "not greater than last-sequence-number 1");
    expectError(() -> TableMetadata.buildFrom(one).addSnapshot(snapshot(newTable(2), 1L, "append")),
        "a snapshot with this id exists");
    TableMetadata added = TableMetadata.buildFrom(one).addSnapshot(snapshot(one, 2L, "append")).build();
    assertEquals(2, added.lastSequenceNumber());
    assertEquals("adding does not make it current", 1L, added.currentSnapshot().snapshotId());
  }

  @Test
  public void v3AddSnapshotAdvancesNextRowId() {
    TableMetadata base = commit(newTable(3), 1L);
    assertEquals(10L, base.nextRowId());
    Snapshot noLineage = Snapshot.builder().copy(snapshot(base, 2L, "append")).firstRowId(null).build();
    expectError(() -> TableMetadata.buildFrom(base).addSnapshot(noLineage), "first-row-id and added-rows are required");
    Snapshot behind = Snapshot.builder().copy(snapshot(base, 2L, "append")).firstRowId(5L).build();
    expectError(() -> TableMetadata.buildFrom(base).addSnapshot(behind),
        "first-row-id 5 is before the table's next-row-id 10");
    Snapshot big = Snapshot.builder().copy(snapshot(base, 2L, "append")).addedRows(1000L).build();
    assertEquals(1010L, TableMetadata.buildFrom(base).addSnapshot(big).build().nextRowId());
  }

  @Test
  public void setBranchSnapshotOnMainUpdatesCurrentRefAndLog() {
    TableMetadata base = commit(newTable(2), 1L);
    Snapshot s2 = snapshot(base, 2L, "append");
    TableMetadata m = TableMetadata.buildFrom(base).addSnapshot(s2)
        .setBranchSnapshot(2L, SnapshotRef.MAIN_BRANCH).build();
    assertEquals(2L, m.currentSnapshot().snapshotId());
    assertEquals(SnapshotRef.branch(2L), m.ref("main"));
    assertEquals(new SnapshotLogEntry(s2.timestampMillis(), 2L), m.snapshotLog().get(1));
    assertTrue(m.lastUpdatedMillis() >= s2.timestampMillis());
    TableMetadata rolledBack = TableMetadata.buildFrom(m).setBranchSnapshot(1L, "main").build();
    assertEquals(1L, rolledBack.currentSnapshot().snapshotId());
    assertEquals(3, rolledBack.snapshotLog().size());
    expectError(() -> TableMetadata.buildFrom(m).setBranchSnapshot(99L, "main"), "unknown snapshot id 99");
  }

  @Test
  public void otherBranchesAndTagsLeaveCurrentAlone() {
    TableMetadata base = commit(commit(newTable(2), 1L), 2L);
    TableMetadata m = TableMetadata.buildFrom(base)
        .setRef("audit", SnapshotRef.builderFor(1L, SnapshotRefType.BRANCH).minSnapshotsToKeep(5).build())
        .setRef("v1", SnapshotRef.tag(1L))
        .build();
    assertEquals(2L, m.currentSnapshot().snapshotId());
    assertEquals(2, m.snapshotLog().size());
    TableMetadata moved = TableMetadata.buildFrom(m).setBranchSnapshot(2L, "audit").build();
    assertEquals("retention kept when the branch moves", Integer.valueOf(5), moved.ref("audit").minSnapshotsToKeep());
    assertEquals(2L, moved.ref("audit").snapshotId());
    expectError(() -> TableMetadata.buildFrom(m).setBranchSnapshot(2L, "v1"), "a tag has this name");
    TableMetadata noTag = TableMetadata.buildFrom(m).removeRef("v1").build();
    assertNull(noTag.ref("v1"));
    TableMetadata noMain = TableMetadata.buildFrom(m).removeRef("main").build();
    assertNull(noMain.currentSnapshot());
  }

  @Test
  public void setCurrentSchemaReusesIdenticalSchemas() {
    TableMetadata base = newTable(2);
    Schema same = base.schema().withSchemaId(42);
    TableMetadata reused = TableMetadata.buildFrom(base).setCurrentSchema(same, base.lastColumnId()).build();
    assertEquals(1, reused.schemas().size());
    assertEquals(0, reused.currentSchemaId());

    List<Types.NestedField> columns = new ArrayList<>(base.schema().columns());
    columns.add(Types.NestedField.optional(13, "extra", Types.LongType.get()));
    Schema evolved = new Schema(columns);
    TableMetadata added = TableMetadata.buildFrom(base).setCurrentSchema(evolved, 13).build();
    assertEquals(2, added.schemas().size());
    assertEquals(1, added.currentSchemaId());
    assertEquals(13, added.lastColumnId());
    TableMetadata back = TableMetadata.buildFrom(added).setCurrentSchema(base.schema(), 13).build();
    assertEquals(0, back.currentSchemaId());
    assertEquals(2, back.schemas().size());

    expectError(() -> TableMetadata.buildFrom(added).setCurrentSchema(evolved, 12),
        "less than the previous last column id 13");
    expectError(() -> TableMetadata.buildFrom(base).setCurrentSchema(evolved, 12),
        "less than the schema's highest field id 13");
  }

  @Test
  public void addPartitionSpecReusesFieldIdsAndSpecs() {
    TableMetadata base = newPartitionedTable(2);
    Schema schema = base.schema();
    PartitionSpec evolved = PartitionSpec.builderFor(schema).bucket("id", 16).identity("price").build();
    TableMetadata m = TableMetadata.buildFrom(base).addPartitionSpec(evolved).setDefaultPartitionSpec(-1).build();
    assertEquals(1, m.defaultSpecId());
    assertEquals("[1001: id_bucket: bucket[16](1), 1002: price: identity(6)]", m.spec().toString());
    assertEquals(1002, m.lastAssignedPartitionId());
    TableMetadata again = TableMetadata.buildFrom(m).setDefaultPartitionSpec(
        PartitionSpec.builderFor(schema).identity("name").bucket("id", 16).build()).build();
    assertEquals("an identical spec is reused", 0, again.defaultSpecId());
    assertEquals(2, again.specs().size());
    TableMetadata unpartitioned = TableMetadata.buildFrom(m)
        .setDefaultPartitionSpec(PartitionSpec.unpartitioned()).build();
    assertEquals(2, unpartitioned.defaultSpecId());
    assertTrue(unpartitioned.spec().isUnpartitioned());
    expectError(() -> TableMetadata.buildFrom(m).setDefaultPartitionSpec(9), "unknown spec id 9");
  }

  @Test
  public void sortOrdersAreReusedByFields() {
    TableMetadata base = newPartitionedTable(2);
    SortOrder byPrice = SortOrder.builderFor(base.schema()).asc("price").build();
    TableMetadata m = TableMetadata.buildFrom(base).setDefaultSortOrder(byPrice).build();
    assertEquals(2, m.defaultSortOrderId());
    TableMetadata unsorted = TableMetadata.buildFrom(m).setDefaultSortOrder(SortOrder.unsorted()).build();
    assertEquals(0, unsorted.defaultSortOrderId());
    assertEquals(Set.of(0, 1, 2), unsorted.sortOrdersById().keySet());
    TableMetadata same = TableMetadata.buildFrom(unsorted).setDefaultSortOrder(byPrice.withOrderId(7)).build();
    assertEquals(2, same.defaultSortOrderId());
  }

  @Test
  public void removeSnapshotsDropsRefsStatisticsAndOldLogEntries() {
    TableMetadata m = commit(commit(commit(newTable(2), 1L), 2L), 3L);
    m = TableMetadata.buildFrom(m)
        .setRef("old", SnapshotRef.tag(1L))
        .setStatistics(new StatisticsFile(1L, "file:/s1.stats", 10, 5, null, List.of()))
        .setStatistics(new StatisticsFile(3L, "file:/s3.stats", 10, 5, null, List.of()))
        .setPartitionStatistics(new PartitionStatisticsFile(1L, "file:/p1.parquet", 10))
        .build();
    TableMetadata expired = TableMetadata.buildFrom(m).removeSnapshots(List.of(1L, 2L, 404L)).build();
    assertEquals(1, expired.snapshots().size());
    assertEquals(Long.valueOf(2L), expired.snapshot(3L).parentId());
    assertNull(expired.ref("old"));
    assertEquals(3L, expired.currentSnapshot().snapshotId());
    assertEquals(1, expired.statisticsFiles().size());
    assertTrue(expired.partitionStatisticsFiles().isEmpty());
    assertEquals(List.of(3L), expired.snapshotLog().stream().map(SnapshotLogEntry::snapshotId).toList());

    TableMetadata empty = TableMetadata.buildFrom(expired).removeSnapshots(List.of(3L)).build();
    assertNull(empty.currentSnapshot());
    assertNull(empty.ref("main"));
    assertTrue(empty.snapshotLog().isEmpty());
    assertTrue(empty.statisticsFiles().isEmpty());
  }

  @Test
  public void replaceSnapshotsKeepsIdsRefsAndLog() {
    TableMetadata base = commit(commit(newTable(2), 1L), 2L);
    Snapshot moved = base.snapshot(1L).withManifestListLocation("file:/moved/snap-1.avro");
    TableMetadata m = TableMetadata.buildFrom(base).replaceSnapshots(List.of(moved)).build();
    assertEquals("file:/moved/snap-1.avro", m.snapshot(1L).manifestListLocation());
    assertEquals(base.snapshot(2L), m.snapshot(2L));
    assertEquals(base.snapshotLog(), m.snapshotLog());
    assertEquals(base.refs(), m.refs());
    Snapshot unknown = Snapshot.builder().copy(moved).snapshotId(3L).build();
    expectError(() -> TableMetadata.buildFrom(base).replaceSnapshots(List.of(unknown)), "unknown snapshot id");
  }

  @Test
  public void clearMetadataLogSkipsBaseFileToo() {
    TableMetadata v1 = newTable(2).withMetadataFileLocation("file:/t/metadata/v1.metadata.json");
    TableMetadata v2 = TableMetadata.buildFrom(v1).build()
        .withMetadataFileLocation("file:/t/metadata/v2.metadata.json");
    assertEquals(1, v2.previousFiles().size());
    assertTrue(TableMetadata.buildFrom(v2).clearMetadataLog().build().previousFiles().isEmpty());
  }

  @Test
  public void statisticsAreOnePerSnapshot() {
    TableMetadata base = commit(newTable(2), 1L);
    TableMetadata m = TableMetadata.buildFrom(base)
        .setStatistics(new StatisticsFile(1L, "file:/a.stats", 10, 5, null, List.of()))
        .setStatistics(new StatisticsFile(1L, "file:/b.stats", 20, 6, null, List.of()))
        .build();
    assertEquals(1, m.statisticsFiles().size());
    assertEquals("file:/b.stats", m.statisticsFiles().get(0).path());
    assertTrue(TableMetadata.buildFrom(m).removeStatistics(1L).build().statisticsFiles().isEmpty());
  }

  @Test
  public void upgradeFormatVersion() {
    TableMetadata v2 = commit(newTable(2), 1L);
    TableMetadata v3 = TableMetadata.buildFrom(v2).upgradeFormatVersion(3).build();
    assertEquals(3, v3.formatVersion());
    assertEquals(0L, v3.nextRowId());
    assertNull("old snapshots keep a null first-row-id", v3.currentSnapshot().firstRowId());
    TableMetadata next = commit(v3, 2L);
    assertEquals(Long.valueOf(0L), next.currentSnapshot().firstRowId());
    assertEquals(10L, next.nextRowId());
    expectError(() -> TableMetadata.buildFrom(v3).upgradeFormatVersion(2), "Cannot downgrade v3 table to v2");
    expectError(() -> TableMetadata.buildFrom(v3).upgradeFormatVersion(4), "Unsupported format version: v4");

    TableMetadata viaProperty = TableMetadata.buildFrom(v2)
        .setProperties(Map.of("format-version", "3", "k", "v")).build();
    assertEquals(3, viaProperty.formatVersion());
    assertEquals(Map.of("k", "v"), viaProperty.properties());
  }

  @Test
  public void propertiesAndLocation() {
    TableMetadata m = TableMetadata.buildFrom(newPartitionedTable(2))
        .setProperties(Map.of("a", "1", "b", "2"))
        .removeProperties(Set.of("owner", "a", "missing"))
        .setLocation("file:/elsewhere/t/")
        .build();
    assertEquals(Map.of("b", "2"), m.properties());
    assertEquals("file:/elsewhere/t", m.location());
    assertEquals(TableProperties.COMMIT_NUM_RETRIES_DEFAULT, m.propertyAsInt(TableProperties.COMMIT_NUM_RETRIES,
        TableProperties.COMMIT_NUM_RETRIES_DEFAULT));
    Map<String, String> bad = new HashMap<>();
    bad.put(TableProperties.COMMIT_NUM_RETRIES, "many");
    TableMetadata withBad = TableMetadata.buildFrom(m).setProperties(bad).build();
    expectError(() -> withBad.propertyAsInt(TableProperties.COMMIT_NUM_RETRIES, 4), "commit.retry.num-retries: many");
  }

  @Test
  public void snapshotIdsArePositive() {
    Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 1000; i++) {
      long id = SnapshotIdGenerator.newSnapshotId();
      assertTrue(id > 0);
      seen.add(id);
    }
    assertEquals(1000, seen.size());
  }

  @Test
  public void metadataIsImmutable() {
    TableMetadata m = commit(newTable(2), 1L);
    try {
      m.snapshots().clear();
      fail("snapshots should be unmodifiable");
    } catch (UnsupportedOperationException expected) {
      assertFalse(m.snapshots().isEmpty());
    }
  }

  private static void expectError(Runnable action, String expected) {
    try {
      action.run();
      fail("expected an error containing: " + expected);
    } catch (IllegalArgumentException e) {
      assertTrue("message was: " + e.getMessage(), e.getMessage().contains(expected));
    }
  }
}
