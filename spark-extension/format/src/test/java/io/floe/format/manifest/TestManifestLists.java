package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestManifestLists {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void roundTripAssignsSequenceNumbersToNewManifestsOnly() throws Exception {
    PartitionSpec spec = identitySpec();
    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, newFile(temp.getRoot(), "new.avro"), null,
        ManifestContent.DATA);
    writer.add(dataFile(spec, "a", 10, 1, "a", 19723, new BigDecimal("1.00"), 0L));
    ManifestFile fresh = close(writer);
    ManifestFile old = ManifestFile.builder("file:/wh/t/metadata/old-m0.avro").withLength(1234).withSequenceNumber(2)
        .withMinSequenceNumber(1).withSnapshotId(7L).withAddedFiles(0, 0L).withExistingFiles(3, 30L)
        .withDeletedFiles(0, 0L).build();
    ManifestFile deletes = ManifestFile.builder("file:/wh/t/metadata/d-m1.avro").withLength(99)
        .withContent(ManifestContent.DELETES).withPartitionSpecId(0).withMinSequenceNumber(3).withSnapshotId(null)
        .withAddedFiles(1, 4L).withExistingFiles(0, 0L).withDeletedFiles(0, 0L).build();

    OutputFile out = newFile(temp.getRoot(), "snap-100.avro");
    List<ManifestFile> written = ManifestLists.write(2, out, 100L, null, 5L, null, List.of(fresh, old, deletes));
    List<ManifestFile> read = ManifestLists.read(out.toInputFile());
    assertEquals(3, read.size());

    ManifestFile m0 = read.get(0);
    assertEquals(fresh.path(), m0.path());
    assertEquals(fresh.length(), m0.length());
    assertEquals(5L, m0.sequenceNumber());
    assertEquals(5L, m0.minSequenceNumber());
    assertEquals(Long.valueOf(100L), m0.snapshotId());
    assertEquals(Integer.valueOf(1), m0.addedFilesCount());
    assertEquals(Long.valueOf(10L), m0.addedRowsCount());
    assertEquals(5, m0.partitions().size());
    assertEquals(fresh.partitions().get(1).lowerBound(), m0.partitions().get(1).lowerBound());
    assertEquals(Boolean.FALSE, m0.partitions().get(1).containsNaN());
    assertNull(m0.firstRowId());

    ManifestFile m1 = read.get(1);
    assertEquals(2L, m1.sequenceNumber());
    assertEquals(1L, m1.minSequenceNumber());
    assertEquals(Long.valueOf(7L), m1.snapshotId());
    assertEquals(Integer.valueOf(3), m1.existingFilesCount());
    assertNull(m1.partitions());

    ManifestFile m2 = read.get(2);
    assertEquals(ManifestContent.DELETES, m2.content());
    assertEquals(5L, m2.sequenceNumber());
    assertEquals(3L, m2.minSequenceNumber());
    assertEquals(Long.valueOf(100L), m2.snapshotId());
    assertEquals(written.get(2).sequenceNumber(), m2.sequenceNumber());

    ManifestEntry e = ManifestReader.read(IO.newInputFile(m0.path()), m0, Map.of(0, spec)).get(0);
    assertEquals(Long.valueOf(5L), e.dataSequenceNumber());
    assertEquals(Long.valueOf(100L), e.snapshotId());

    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new File(temp.getRoot(), "snap-100.avro"),
        new GenericDatumReader<>())) {
      assertEquals("100", reader.getMetaString("snapshot-id"));
      assertEquals("null", reader.getMetaString("parent-snapshot-id"));
      assertEquals("5", reader.getMetaString("sequence-number"));
      assertEquals("2", reader.getMetaString("format-version"));
      assertEquals("deflate", reader.getMetaString("avro.codec"));
      assertNull(reader.getMetaString("first-row-id"));
    }
  }

  /**
   * docs/format.md, 'Row lineage (v3)': next-row-id 1000; added1 (100, 25) -> 1000, added2 (0, 100) -> 1125,
   * added3 (125, 25) -> 1225.
   */
  @Test
  public void v3AssignsFirstRowIdsLikeTheSpecExample() throws Exception {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    ManifestWriter writer = ManifestWriter.write(3, spec, SCHEMA, newFile(temp.getRoot(), "added1.avro"), null,
        ManifestContent.DATA);
    writer.add(dataFile(spec, "f1", 50));
    writer.add(dataFile(spec, "f2", 50));
    DataFile old = DataFile.builder(spec).copy(dataFile(spec, "old", 25)).withFirstRowId(0L).build();
    writer.existing(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 1L, 1L, 1L, old));
    ManifestFile added1 = close(writer);
    assertEquals(Long.valueOf(100L), added1.addedRowsCount());
    assertEquals(Long.valueOf(25L), added1.existingRowsCount());
    ManifestFile added2 = listed("added2", ManifestContent.DATA, 0L, 100L, null);
    ManifestFile added3 = listed("added3", ManifestContent.DATA, 125L, 25L, null);
    ManifestFile kept = listed("kept", ManifestContent.DATA, 10L, 0L, 500L);
    ManifestFile deletes = listed("deletes", ManifestContent.DELETES, 3L, 0L, null);

    OutputFile out = newFile(temp.getRoot(), "snap-v3.avro");
    ManifestLists.write(3, out, 200L, 100L, 9L, 1000L, List.of(added1, added2, kept, added3, deletes));
    List<ManifestFile> read = ManifestLists.read(out.toInputFile());
    assertEquals(Long.valueOf(1000L), read.get(0).firstRowId());
    assertEquals(Long.valueOf(1125L), read.get(1).firstRowId());
    assertEquals(Long.valueOf(500L), read.get(2).firstRowId());
    assertEquals(Long.valueOf(1225L), read.get(3).firstRowId());
    assertNull(read.get(4).firstRowId());

    List<ManifestEntry<DataFile>> entries = ManifestReader.readData(IO.newInputFile(read.get(0).path()), read.get(0),
        Map.of(0, spec));
    assertEquals(Long.valueOf(1000L), entries.get(0).file().firstRowId());
    assertEquals(Long.valueOf(1050L), entries.get(1).file().firstRowId());
    assertEquals(Long.valueOf(0L), entries.get(2).file().firstRowId());
    assertEquals(Long.valueOf(9L), entries.get(0).dataSequenceNumber());

    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new File(temp.getRoot(), "snap-v3.avro"),
        new GenericDatumReader<>())) {
      assertEquals("1000", reader.getMetaString("first-row-id"));
      assertEquals("100", reader.getMetaString("parent-snapshot-id"));
      assertEquals("3", reader.getMetaString("format-version"));
    }
  }

  @Test
  public void v1ListsReadWithDefaults() throws Exception {
    String json = "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
        + "{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
        + "{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
        + "{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"
        + "{\"name\":\"added_snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":503}]}";
    Schema schema = new Schema.Parser().parse(json);
    GenericData.Record r = new GenericData.Record(schema);
    r.put("manifest_path", "file:/wh/m.avro");
    r.put("manifest_length", 10L);
    r.put("partition_spec_id", 0);
    r.put("added_snapshot_id", 3L);
    File file = new File(temp.getRoot(), "v1-list.avro");
    TestManifestInheritance.writeRaw(file, schema, Map.of("format-version", "1"), List.of(r));
    ManifestFile m = ManifestLists.read(IO.newInputFile(file.toURI().toString())).get(0);
    assertEquals(0L, m.sequenceNumber());
    assertEquals(ManifestContent.DATA, m.content());
    assertNull(m.addedFilesCount());
    assertEquals(true, m.hasAddedFiles());
    assertEquals(Long.valueOf(3L), m.snapshotId());
  }

  private static ManifestFile listed(String name, ManifestContent content, long added, long existing, Long firstRowId) {
    return ManifestFile.builder("file:/wh/t/metadata/" + name + ".avro").withLength(100).withContent(content)
        .withSequenceNumber(3).withMinSequenceNumber(3).withSnapshotId(50L)
        .withAddedFiles(added > 0 ? 1 : 0, added).withExistingFiles(existing > 0 ? 1 : 0, existing)
        .withDeletedFiles(0, 0L).withFirstRowId(firstRowId).build();
  }
}
