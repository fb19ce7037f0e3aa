package io.floe.format.metadata;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.List;
import java.util.Map;
import org.junit.Test;

public class TestSnapshotParser {

  @Test
  public void summaryKeepsEveryKeyInOrderWithOperationFirst() {
    String json = "{\"snapshot-id\":5,\"parent-snapshot-id\":4,\"sequence-number\":3,\"timestamp-ms\":100,"
        + "\"summary\":{\"zeta\":\"1\",\"operation\":\"replace\",\"alpha\":\"2\",\"spark.app.id\":\"local-1\"},"
        + "\"manifest-list\":\"file:/t/metadata/snap-5.avro\",\"schema-id\":2}";
    Snapshot s = SnapshotParser.fromJson(json);
    assertEquals("replace", s.operation());
    assertEquals(List.of("zeta", "alpha", "spark.app.id"), List.copyOf(s.summary().keySet()));
    assertEquals("{\"snapshot-id\":5,\"parent-snapshot-id\":4,\"sequence-number\":3,\"timestamp-ms\":100,"
        + "\"summary\":{\"operation\":\"replace\",\"zeta\":\"1\",\"alpha\":\"2\",\"spark.app.id\":\"local-1\"},"
        + "\"manifest-list\":\"file:/t/metadata/snap-5.avro\",\"schema-id\":2}", SnapshotParser.toJson(s));
  }

  @Test
  public void missingOperationOrSummaryDefaultsToOverwrite() {
    Snapshot noOp = SnapshotParser.fromJson("{\"snapshot-id\":1,\"timestamp-ms\":1,\"summary\":{\"a\":\"b\"},"
        + "\"manifest-list\":\"m\"}");
    assertEquals(DataOperations.OVERWRITE, noOp.operation());
    assertEquals(Map.of("a", "b"), noOp.summary());
    assertEquals(0, noOp.sequenceNumber());
    assertNull(noOp.parentId());
    Snapshot noSummary = SnapshotParser.fromJson("{\"snapshot-id\":1,\"timestamp-ms\":1,\"manifest-list\":\"m\"}");
    assertEquals(DataOperations.OVERWRITE, noSummary.operation());
  }

  @Test
  public void v1EmbeddedManifestListRoundTrips() {
    String json = "{\"snapshot-id\":1,\"timestamp-ms\":1,\"summary\":{\"operation\":\"append\"},"
        + "\"manifests\":[\"file:/a.avro\",\"file:/b.avro\"]}";
    Snapshot s = SnapshotParser.fromJson(json);
    assertNull(s.manifestListLocation());
    assertEquals(List.of("file:/a.avro", "file:/b.avro"), s.v1ManifestLocations());
    assertEquals(json, SnapshotParser.toJson(s));
  }

  @Test
  public void rowLineageAndKeyIdRoundTrip() {
    String json = "{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":1,\"summary\":{\"operation\":\"append\"},"
        + "\"manifest-list\":\"m\",\"first-row-id\":0,\"added-rows\":25,\"key-id\":\"k1\"}";
    Snapshot s = SnapshotParser.fromJson(json);
    assertEquals(Long.valueOf(0), s.firstRowId());
    assertEquals(Long.valueOf(25), s.addedRows());
    assertEquals("k1", s.keyId());
    assertEquals(json, SnapshotParser.toJson(s));
  }

  @Test
  public void errorsNameTheField() {
    expect("{\"timestamp-ms\":1,\"manifest-list\":\"m\"}", "Cannot parse snapshot: missing field: snapshot-id");
    expect("{\"snapshot-id\":1,\"manifest-list\":\"m\"}", "missing field: timestamp-ms");
    expect("{\"snapshot-id\":1,\"timestamp-ms\":1}", "missing field: manifest-list");
    expect("{\"snapshot-id\":\"x\",\"timestamp-ms\":1,\"manifest-list\":\"m\"}",
        "invalid field snapshot-id: expected a long, found \"x\"");
    expect("{\"snapshot-id\":1,\"timestamp-ms\":1,\"manifest-list\":\"m\",\"summary\":[]}",
        "invalid field summary: expected an object");
  }

  @Test
  public void sortOrderJsonRoundTrips() {
    String json = "{\"order-id\":3,\"fields\":[{\"transform\":\"identity\",\"source-id\":2,\"direction\":\"asc\","
        + "\"null-order\":\"nulls-first\"},{\"transform\":\"day\",\"source-id\":4,\"direction\":\"desc\","
        + "\"null-order\":\"nulls-last\"}]}";
    SortOrder order = SortOrderParser.fromJson(json);
    assertEquals(3, order.orderId());
    assertEquals("day", order.fields().get(1).transform().toString());
    assertEquals(json, SortOrderParser.toJson(order));
    assertEquals("{\"order-id\":0,\"fields\":[]}", SortOrderParser.toJson(SortOrder.unsorted()));
    try {
      SortOrderParser.fromJson("{\"order-id\":1,\"fields\":[{\"transform\":\"identity\",\"source-id\":2,"
          + "\"direction\":\"up\",\"null-order\":\"nulls-first\"}]}");
      fail();
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(),
          e.getMessage().contains("in fields[0]: invalid field direction: expected asc or desc"));
    }
  }

  @Test
  public void tagsCannotCarryBranchRetention() {
    try {
      SnapshotRef.builderFor(1L, SnapshotRefType.TAG).minSnapshotsToKeep(1).build();
      fail();
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage().contains("apply to branches only"));
    }
  }

  private static void expect(String json, String message) {
    try {
      SnapshotParser.fromJson(json);
      fail("expected: " + message);
    } catch (IllegalArgumentException e) {
      assertTrue("message was: " + e.getMessage(), e.getMessage().contains(message));
    }
  }
}
