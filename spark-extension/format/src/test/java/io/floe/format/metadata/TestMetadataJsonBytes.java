package io.floe.format.metadata;

import static io.floe.format.metadata.MetadataFixtures.commit;
import static io.floe.format.metadata.MetadataFixtures.newPartitionedTable;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.Test;

/** Metadata JSON generated and parsed as bytes is exactly the JSON of the String methods. */
public class TestMetadataJsonBytes {
  private static TableMetadata unicodeMetadata(int formatVersion) {
    TableMetadata m = commit(commit(newPartitionedTable(formatVersion), 1L), 2L);
    return TableMetadata.buildFrom(m).setProperties(Map.of(
        "comment", "caf\u00e9 \u6771\u4eac \ud83d\udc1f", "quote\"and\\slash", "tab\there\nnewline\u0001")).build();
  }

  @Test
  public void bytesAreTheUtf8OfTheString() {
    for (int v = 1; v <= 3; v++) {
      TableMetadata m = unicodeMetadata(v);
      assertArrayEquals(TableMetadataParser.toJson(m).getBytes(StandardCharsets.UTF_8),
          TableMetadataParser.toJsonBytes(m));
    }
  }

  @Test
  public void parsingBytesGivesWhatWasWritten() {
    TableMetadata m = unicodeMetadata(2);
    TableMetadata parsed = TableMetadataParser.fromJson("f.json", TableMetadataParser.toJsonBytes(m));
    assertEquals("caf\u00e9 \u6771\u4eac \ud83d\udc1f", parsed.properties().get("comment"));
    assertEquals("tab\there\nnewline\u0001", parsed.properties().get("quote\"and\\slash"));
    assertEquals(TableMetadataParser.toJson(m), TableMetadataParser.toJson(parsed));
    assertEquals("f.json", parsed.metadataFileLocation());
  }
}
