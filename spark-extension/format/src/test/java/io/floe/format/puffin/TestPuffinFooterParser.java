package io.floe.format.puffin;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The footer payload JSON: keys from the Puffin spec, optional keys only when present. */
public class TestPuffinFooterParser {
  @Test
  public void writesOptionalKeysOnlyWhenPresentAndRoundTrips() {
    FileMetadata footer = new FileMetadata(List.of(
        new BlobMetadata("apache-datasketches-theta-v1", List.of(1), 12L, 3L, 4, 100, "zstd", Map.of("ndv", "7")),
        new BlobMetadata("deletion-vector-v1", List.of(2147483645), -1, -1, 104, 40, null, Map.of())),
        Map.of("created-by", "Floe"));
    String json = PuffinFooterParser.toJson(footer);
    assertEquals("{\"blobs\":["
        + "{\"type\":\"apache-datasketches-theta-v1\",\"fields\":[1],\"snapshot-id\":12,\"sequence-number\":3,"
        + "\"offset\":4,\"length\":100,\"compression-codec\":\"zstd\",\"properties\":{\"ndv\":\"7\"}},"
        + "{\"type\":\"deletion-vector-v1\",\"fields\":[2147483645],\"snapshot-id\":-1,\"sequence-number\":-1,"
        + "\"offset\":104,\"length\":40}],"
        + "\"properties\":{\"created-by\":\"Floe\"}}", json);
    assertEquals(footer, PuffinFooterParser.fromJson(json));
    assertEquals("{\"blobs\":[]}", PuffinFooterParser.toJson(new FileMetadata(List.of(), Map.of())));
  }

  @Test
  public void namesWhatIsMissingOrMistyped() {
    assertEquals("missing field: blobs", message("{}"));
    assertEquals("missing field: type",
        message("{\"blobs\":[{\"fields\":[],\"snapshot-id\":1,\"sequence-number\":1,\"offset\":4,\"length\":0}]}"));
    assertEquals("Cannot parse field id from non-integer: \"1\"", message(
        "{\"blobs\":[{\"type\":\"t\",\"fields\":[\"1\"],\"snapshot-id\":1,\"sequence-number\":1,\"offset\":4,\"length\":0}]}"));
    assertEquals("Cannot parse property ndv from non-string: 7", message(
        "{\"blobs\":[{\"type\":\"t\",\"fields\":[],\"snapshot-id\":1,\"sequence-number\":1,\"offset\":4,\"length\":0,"
            + "\"properties\":{\"ndv\":7}}]}"));
    assertEquals("invalid field offset: expected a long, found \"4\"", message(
        "{\"blobs\":[{\"type\":\"t\",\"fields\":[],\"snapshot-id\":1,\"sequence-number\":1,\"offset\":\"4\",\"length\":0}]}"));
  }

  private static String message(String json) {
    return assertThrows(IllegalArgumentException.class, () -> PuffinFooterParser.fromJson(json)).getMessage();
  }
}
