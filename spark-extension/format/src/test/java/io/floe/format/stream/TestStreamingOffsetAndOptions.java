package io.floe.format.stream;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import java.util.Map;
import org.junit.Test;

/** The offset's stable JSON and the read options' parsing. */
public class TestStreamingOffsetAndOptions {
  @Test
  public void offsetJsonIsStableAndRoundTrips() {
    StreamingOffset offset = new StreamingOffset(8744736658442914487L, 3, false, true);
    String json = "{\"version\":1,\"snapshot_id\":8744736658442914487,\"position\":3,\"scan_all_files\":false,"
        + "\"snapshot_complete\":true}";
    assertEquals(json, offset.toJson());
    assertEquals(offset, StreamingOffset.fromJson(json));
    assertEquals(StreamingOffset.START, StreamingOffset.fromJson(StreamingOffset.START.toJson()));
    assertTrue(StreamingOffset.fromJson(StreamingOffset.START.toJson()).isStart());
  }

  @Test
  public void malformedOffsetsAreReportedWithTheirText() {
    for (String bad : new String[] {"[]", "{\"version\":2,\"snapshot_id\":1,\"position\":0,\"scan_all_files\":false,"
        + "\"snapshot_complete\":false}", "{\"version\":1,\"snapshot_id\":1,\"position\":0}", "not json"}) {
      try {
        StreamingOffset.fromJson(bad);
        fail("accepted " + bad);
      } catch (FloeException e) {
        assertEquals(ErrorClass.FLOE_OPTION_INVALID, e.errorClass());
        assertTrue(e.getMessage(), e.getMessage().startsWith("Invalid Floe streaming offset " + bad + ": "));
      }
    }
  }

  @Test
  public void optionsHaveIcebergNamesAndDefaults() {
    StreamingReadOptions none = StreamingReadOptions.parse("db.t", Map.of());
    assertEquals(StreamingReadOptions.DEFAULTS, none);
    assertNull(none.fromTimestampMillis());
    StreamingReadOptions set = StreamingReadOptions.parse("db.t", Map.of(
        "stream-from-timestamp", "1700000000000", "STREAMING-MAX-FILES-PER-MICRO-BATCH", "5",
        "streaming-max-rows-per-micro-batch", "1000", "streaming-skip-delete-snapshots", "TRUE",
        "streaming-skip-overwrite-snapshots", "false", "unrelated", "x"));
    assertEquals(Long.valueOf(1700000000000L), set.fromTimestampMillis());
    assertEquals(5, set.maxFilesPerBatch());
    assertEquals(1000L, set.maxRowsPerBatch());
    assertTrue(set.skipDeleteSnapshots());
    assertFalse(set.skipOverwriteSnapshots());
  }

  @Test
  public void invalidOptionValuesNameTheOptionAndTheTable() {
    Map<String, String> cases = Map.of(StreamingReadOptions.MAX_FILES_PER_MICRO_BATCH, "0",
        StreamingReadOptions.MAX_ROWS_PER_MICRO_BATCH, "lots", StreamingReadOptions.STREAM_FROM_TIMESTAMP, "-5",
        StreamingReadOptions.SKIP_DELETE_SNAPSHOTS, "yes");
    cases.forEach((key, value) -> {
      try {
        StreamingReadOptions.parse("db.t", Map.of(key, value));
        fail("accepted " + key + "=" + value);
      } catch (FloeException e) {
        assertEquals(ErrorClass.FLOE_OPTION_INVALID, e.errorClass());
        assertEquals(key, e.parameters().get("option"));
        assertTrue(e.getMessage(), e.getMessage().contains("db.t") && e.getMessage().contains("'" + value + "'"));
      }
    });
  }
}
