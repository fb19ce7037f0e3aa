package io.floe.format.metadata;

import static io.floe.format.metadata.MetadataFixtures.commit;
import static io.floe.format.metadata.MetadataFixtures.newTable;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.floe.format.FloeFormatException;
import io.floe.format.util.JsonUtil;
import java.util.function.Consumer;
import org.junit.Test;

/** The log and ref rules of {@link MetadataChecks}, which build their messages only on failure. */
public class TestMetadataChecks {
  private static final long MINUTE = 60_000L;

  private static String threeCommits() {
    return TableMetadataParser.toJson(commit(commit(commit(newTable(2), 1L), 2L), 3L));
  }

  private static String edit(String json, Consumer<ObjectNode> change) {
    ObjectNode node = (ObjectNode) JsonUtil.parse(json);
    change.accept(node);
    return node.toString();
  }

  private static void setLogTime(ObjectNode root, String log, int index, long millis) {
    ((ObjectNode) root.get(log).get(index)).put("timestamp-ms", millis);
  }

  private static void assertInvalid(String json, String expected) {
    try {
      TableMetadataParser.fromJson("f.json", json);
      fail("expected an error containing: " + expected);
    } catch (FloeFormatException e) {
      assertTrue("message was: " + e.getMessage(), e.getMessage().contains("Invalid table metadata: " + expected));
    }
  }

  @Test
  public void snapshotLogOutOfOrderByMoreThanAMinuteNamesTheEntry() {
    String json = threeCommits();
    long first = JsonUtil.parse(json).get("snapshot-log").get(0).get("timestamp-ms").asLong();
    assertInvalid(edit(json, n -> setLogTime(n, "snapshot-log", 0, first + 2 * MINUTE)),
        "snapshot-log is not sorted by timestamp-ms at SnapshotLogEntry");
  }

  @Test
  public void clockSkewOfUpToAMinuteIsAccepted() {
    String json = threeCommits();
    long first = JsonUtil.parse(json).get("snapshot-log").get(0).get("timestamp-ms").asLong();
    long lastUpdated = JsonUtil.parse(json).get("last-updated-ms").asLong();
    TableMetadata m = TableMetadataParser.fromJson("f.json", edit(json, n -> {
      setLogTime(n, "snapshot-log", 0, first + MINUTE - 10);
      n.put("last-updated-ms", lastUpdated - MINUTE + 10);
    }));
    assertEquals(3, m.snapshotLog().size());
  }

  @Test
  public void lastUpdatedBeforeTheLastLogEntryIsRejected() {
    String json = threeCommits();
    long lastUpdated = JsonUtil.parse(json).get("last-updated-ms").asLong();
    assertInvalid(edit(json, n -> n.put("last-updated-ms", lastUpdated - 2 * MINUTE)),
        "last-updated-ms " + (lastUpdated - 2 * MINUTE) + " is before the last snapshot-log entry at");
  }

  @Test
  public void metadataLogOutOfOrderIsRejected() {
    String json = edit(threeCommits(), n -> {
      n.putArray("metadata-log").addObject().put("timestamp-ms", 5 * MINUTE).put("metadata-file", "v1.json");
      ((com.fasterxml.jackson.databind.node.ArrayNode) n.get("metadata-log")).addObject()
          .put("timestamp-ms", MINUTE).put("metadata-file", "v2.json");
    });
    assertInvalid(json, "metadata-log is not sorted by timestamp-ms at");
  }

  @Test
  public void mainMustBeABranch() {
    String json = edit(threeCommits(), n -> ((ObjectNode) n.get("refs").get("main")).put("type", "tag"));
    assertInvalid(json, "main must be a branch, found a tag");
  }
}
