package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.TableProperties;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The index list JSON: round trip, unknown fields tolerated, bad documents named. */
public class TestIndexListParser {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static IndexList sample() {
    TableIndex btree = TableIndex.builder("by_user", IndexType.BTREE, 3)
        .setProperty(TableIndex.MAINTENANCE, TableIndex.MAINTENANCE_SYNC)
        .addSegment(new IndexSegment("file:/t/metadata/_floe_indexes/by_user/a.puffin", 4096, 12, 1000, 17, 4))
        .addSegment(new IndexSegment("file:/t/metadata/_floe_indexes/by_user/b.puffin", 512, 1, 10, 18, 5))
        .build();
    TableIndex inverted = TableIndex.builder("by_country", IndexType.INVERTED, 11)
        .setProperty(TableIndex.MAINTENANCE, TableIndex.MAINTENANCE_DEFERRED).build();
    return IndexList.buildFrom(IndexList.empty()).add(btree).add(inverted).build();
  }

  @Test
  public void roundTrip() {
    IndexList list = sample();
    IndexList back = IndexListParser.fromJson(IndexListParser.toJson(list));
    assertEquals(list, back);
    assertTrue(back.index("by_country").isDeferred());
    assertEquals(2, back.segmentPaths().size());
    assertEquals(IndexList.empty(), IndexListParser.fromJson(IndexListParser.toJson(IndexList.empty())));
  }

  @Test
  public void unknownFieldsAreIgnored() {
    String json = "{\"format-version\": 1, \"future\": {\"x\": 1}, \"indexes\": [{\"name\": \"i\", \"type\": "
        + "\"inverted\", \"source-field-ids\": [4], \"bloom\": true, \"segments\": [{\"path\": \"file:/s.puffin\", "
        + "\"file-size-in-bytes\": 10, \"covered-file-count\": 2, \"entry-count\": 3, \"snapshot-id\": 5, "
        + "\"sequence-number\": 6, \"checksum\": \"abc\"}]}]}";
    IndexList list = IndexListParser.fromJson(json);
    assertEquals(new IndexSegment("file:/s.puffin", 10, 2, 3, 5, 6), list.index("i").segments().get(0));
    assertEquals(4, list.index("i").sourceFieldId());
  }

  @Test
  public void badDocumentsAreNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IndexListParser.fromJson(
        "{\"format-version\": 1, \"indexes\": [{\"type\": \"btree\", \"source-field-ids\": [1], \"segments\": []}]}"));
    assertEquals("Cannot parse index list: in indexes[0]: missing field: name", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> IndexListParser.fromJson(
        "{\"format-version\": 2, \"indexes\": []}"));
    assertTrue(e.getMessage(), e.getMessage().contains("format-version 2 is newer"));
    e = assertThrows(IllegalArgumentException.class, () -> IndexListParser.fromJson("{\"format-version\": 1, "
        + "\"indexes\": [{\"name\": \"i\", \"type\": \"hash\", \"source-field-ids\": [1], \"segments\": []}]}"));
    assertTrue(e.getMessage(), e.getMessage().contains("invalid field type: expected inverted or btree"));
    String twice = "{\"name\": \"i\", \"type\": \"btree\", \"source-field-ids\": [1], \"segments\": []}";
    e = assertThrows(IllegalArgumentException.class, () -> IndexListParser.fromJson(
        "{\"format-version\": 1, \"indexes\": [" + twice + ", " + twice + "]}"));
    assertTrue(e.getMessage(), e.getMessage().contains("Index i already exists"));
  }

  @Test
  public void listFilesLiveInTheHiddenFolderAndAreNamedByTheTableProperty() {
    LocalFileIO io = new LocalFileIO();
    String metadata = temp.getRoot().toURI().toString() + "metadata";
    String location = IndexListFiles.write(io, metadata, sample());
    assertTrue(location, location.startsWith(metadata + "/_floe_indexes/index-list-"));
    assertEquals(sample(), IndexListFiles.read(io, "db.t", Map.of(TableProperties.INDEXES, location)));
    assertEquals(IndexList.empty(), IndexListFiles.read(io, "db.t", Map.of()));
    IndexException e = assertThrows(IndexException.class,
        () -> IndexListFiles.read(io, "db.t", Map.of(TableProperties.INDEXES, location + ".gone")));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Cannot read the index list " + location + ".gone of table db.t"));
    assertTrue(IndexLocations.newSegment(metadata, "by user/x").startsWith(metadata + "/_floe_indexes/by_user_x/"));
    assertTrue(TableProperties.known(TableProperties.INDEXES).accepts(location));
  }

  @Test
  public void planningParsesAListOnceAndNeverKeepsAFailure() throws Exception {
    LocalFileIO io = new LocalFileIO();
    String metadata = temp.getRoot().toURI().toString() + "metadata";
    String location = IndexListFiles.write(io, metadata, sample());
    Map<String, String> props = Map.of(TableProperties.INDEXES, location);
    IndexException missing = assertThrows(IndexException.class,
        () -> IndexListFiles.readShared(io, "db.t", Map.of(TableProperties.INDEXES, location + ".gone")));
    assertTrue(missing.getMessage(), missing.getMessage().contains(location + ".gone"));
    assertThrows("a failed read is not kept", IndexException.class,
        () -> IndexListFiles.readShared(io, "db.t", Map.of(TableProperties.INDEXES, location + ".gone")));
    assertEquals(sample(), IndexListFiles.readShared(io, "db.t", props));
    io.deleteFile(location); // lists are never rewritten: a planned one is not read again
    assertEquals(sample(), IndexListFiles.readShared(io, "db.t", props));
    assertThrows("commits and maintenance read the file itself", IndexException.class,
        () -> IndexListFiles.read(io, "db.t", props));
    assertEquals(IndexList.empty(), IndexListFiles.readShared(io, "db.t", Map.of()));
  }
}
