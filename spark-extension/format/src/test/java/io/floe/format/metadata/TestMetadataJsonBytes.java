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

  /**
   * A commit writes the snapshots of the previous metadata from the JSON kept for them: the same
   * bytes as generating them, the first time, the next time and for equal snapshots read back.
   */
  @Test
  public void keptSnapshotJsonIsTheGeneratedJson() {
    for (int v = 1; v <= 3; v++) {
      TableMetadata base = unicodeMetadata(v);
      Snapshot odd = Snapshot.builder().copy(MetadataFixtures.snapshot(base, 3L, "overwrite"))
          .summary(Map.of("operation", "overwrite", "note", "caf\u00e9 \ud83d\udc1f \"q\" \\ \u0001 \u2028"))
          .keyId(v >= 3 ? "key-\u6771" : null).build();
      TableMetadata m = TableMetadata.buildFrom(base).setBranchSnapshot(odd, "main").build();
      byte[] expected = TableMetadataParser.toJson(m).getBytes(StandardCharsets.UTF_8);
      assertArrayEquals(expected, TableMetadataParser.toJsonBytes(m));
      assertArrayEquals(expected, TableMetadataParser.toJsonBytes(m));
      TableMetadata read = TableMetadataParser.fromJson("f.json", expected);
      assertArrayEquals(expected, TableMetadataParser.toJsonBytes(read));
      TableMetadata next = commit(read, 4L);
      assertArrayEquals(TableMetadataParser.toJson(next).getBytes(StandardCharsets.UTF_8),
          TableMetadataParser.toJsonBytes(next));
    }
  }

  /**
   * A summary value holding a lone surrogate (not valid UTF-16, but a Java string can carry it):
   * the byte generator escapes it ({@code \\uD800}), and the kept JSON of such a snapshot is
   * those same bytes, cold and warm, and reads back as the value written.
   */
  @Test
  public void aLoneSurrogateInASnapshotIsEscapedTheSameWayWhenKept() {
    TableMetadata base = unicodeMetadata(2);
    Snapshot odd = Snapshot.builder().copy(MetadataFixtures.snapshot(base, 3L, "append"))
        .summary(Map.of("operation", "append", "note", "bad \ud800 x")).build();
    TableMetadata m = TableMetadata.buildFrom(base).setBranchSnapshot(odd, "main").build();
    byte[] cold = TableMetadataParser.toJsonBytes(m);
    assertArrayEquals(cold, TableMetadataParser.toJsonBytes(m));
    String text = new String(cold, StandardCharsets.UTF_8);
    assertEquals(text, 1, text.split("bad \\\\[uU][dD]800 x", -1).length - 1);
    TableMetadata read = TableMetadataParser.fromJson("f.json", cold);
    assertEquals("bad \ud800 x", read.snapshot(3L).summary().get("note"));
    assertArrayEquals(cold, TableMetadataParser.toJsonBytes(read));
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
