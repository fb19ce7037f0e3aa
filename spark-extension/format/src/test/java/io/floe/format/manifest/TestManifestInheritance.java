package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeFormatException;
import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.TimeTransforms;
import java.io.File;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestManifestInheritance {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void nullSnapshotIdAndSequenceNumbersInheritFromTheList() {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    OutputFile out = newFile(temp.getRoot(), "m.avro");
    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, out, null, ManifestContent.DATA);
    writer.add(dataFile(spec, "a", 1));
    ManifestFile written = close(writer);
    assertNull(written.snapshotId());

    List<ManifestEntry<?>> unlisted = ManifestReader.read(out.toInputFile(), written, Map.of());
    assertNull("nothing to inherit yet", unlisted.get(0).snapshotId());
    assertNull(unlisted.get(0).dataSequenceNumber());

    ManifestFile listed = written.withSnapshotId(99L).withSequenceNumbers(4L, 4L);
    ManifestEntry e = ManifestReader.read(out.toInputFile(), listed, Map.of(0, spec)).get(0);
    assertEquals(Long.valueOf(99L), e.snapshotId());
    assertEquals(Long.valueOf(4L), e.dataSequenceNumber());
    assertEquals(Long.valueOf(4L), e.fileSequenceNumber());
  }

  @Test
  public void existingEntryWithoutSequenceNumberIsAnErrorNamingTheManifest() throws Exception {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    Schema schema = ManifestSchemas.manifestEntry(2, spec);
    GenericRecord entry = entry(schema, 0, 5L, null);
    File file = new File(temp.getRoot(), "bad.avro");
    writeRaw(file, schema, Map.of("format-version", "2"), List.of(entry));
    ManifestFile manifest = ManifestFile.builder(file.toURI().toString()).withSequenceNumber(6L)
        .withMinSequenceNumber(6L).withSnapshotId(5L).build();
    try {
      ManifestReader.read(IO.newInputFile(file.toURI().toString()), manifest, Map.of(0, spec));
      fail("expected an error");
    } catch (FloeFormatException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(file.toURI().toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("EXISTING"));
    }
  }

  @Test
  public void v1ManifestsReadWithSequenceNumberZero() throws Exception {
    String json = "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
        + "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
        + "{\"name\":\"snapshot_id\",\"type\":\"long\",\"field-id\":1},"
        + "{\"name\":\"data_file\",\"field-id\":2,\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
        + "{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
        + "{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
        + "{\"name\":\"partition\",\"field-id\":102,\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":[]}},"
        + "{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
        + "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
        + "{\"name\":\"block_size_in_bytes\",\"type\":\"long\",\"field-id\":105}]}}]}";
    Schema schema = new Schema.Parser().parse(json);
    Schema fileSchema = schema.getField("data_file").schema();
    GenericData.Record f = new GenericData.Record(fileSchema);
    f.put("file_path", "file:/wh/t/data/a.parquet");
    f.put("file_format", "parquet");
    f.put("partition", new GenericData.Record(fileSchema.getField("partition").schema()));
    f.put("record_count", 3L);
    f.put("file_size_in_bytes", 30L);
    f.put("block_size_in_bytes", 64L);
    GenericData.Record e = new GenericData.Record(schema);
    e.put("status", 0);
    e.put("snapshot_id", 11L);
    e.put("data_file", f);
    File file = new File(temp.getRoot(), "v1.avro");
    writeRaw(file, schema, Map.of("format-version", "1"), List.of(e));

    ManifestFile manifest = ManifestFile.builder(file.toURI().toString()).withSequenceNumber(0L)
        .withMinSequenceNumber(0L).withSnapshotId(11L).build();
    PartitionSpec spec = PartitionSpec.unpartitioned();
    ManifestEntry read = ManifestReader.read(IO.newInputFile(file.toURI().toString()), manifest, Map.of(0, spec)).get(0);
    assertEquals(ManifestEntry.Status.EXISTING, read.status());
    assertEquals(Long.valueOf(0L), read.dataSequenceNumber());
    assertEquals(Long.valueOf(0L), read.fileSequenceNumber());
    assertEquals(FileContent.DATA, read.file().content());
    assertEquals(FileFormat.PARQUET, read.file().format());
    assertTrue(read.file().valueCounts().isEmpty());
  }

  /** pyiceberg/Java variations: field order, long equality ids, plain int day, lower-case format, no field 4. */
  @Test
  public void foreignLayoutsAreRead() throws Exception {
    String json = "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
        + "{\"name\":\"data_file\",\"field-id\":2,\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
        + "{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
        + "{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
        + "{\"name\":\"content\",\"type\":\"int\",\"field-id\":134},"
        + "{\"name\":\"partition\",\"field-id\":102,\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":["
        + "{\"name\":\"ts_day\",\"type\":[\"null\",\"int\"],\"default\":null,\"field-id\":1000}]}},"
        + "{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
        + "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
        + "{\"name\":\"value_counts\",\"field-id\":109,\"default\":null,\"type\":[\"null\",{\"type\":\"array\","
        + "\"logicalType\":\"map\",\"items\":{\"type\":\"record\",\"name\":\"k119_v120\",\"fields\":["
        + "{\"name\":\"key\",\"type\":\"int\",\"field-id\":119},{\"name\":\"value\",\"type\":\"long\",\"field-id\":120}]}}]},"
        + "{\"name\":\"equality_ids\",\"field-id\":135,\"default\":null,"
        + "\"type\":[\"null\",{\"type\":\"array\",\"items\":\"long\",\"element-id\":136}]}]}},"
        + "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":3},"
        + "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
        + "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0}]}";
    Schema schema = new Schema.Parser().parse(json);
    Schema fileSchema = schema.getField("data_file").schema();
    Schema kv = fileSchema.getField("value_counts").schema().getTypes().get(1).getElementType();
    GenericData.Record f = new GenericData.Record(fileSchema);
    f.put("file_format", "parquet");
    f.put("file_path", "file:/wh/t/data/eq.parquet");
    f.put("content", 2);
    GenericData.Record p = new GenericData.Record(fileSchema.getField("partition").schema());
    p.put("ts_day", 19723);
    f.put("partition", p);
    f.put("record_count", 2L);
    f.put("file_size_in_bytes", 20L);
    GenericData.Record count = new GenericData.Record(kv);
    count.put("key", 1);
    count.put("value", 2L);
    f.put("value_counts", List.of(count));
    f.put("equality_ids", List.of(1L, 2L));
    GenericData.Record added = new GenericData.Record(schema);
    added.put("data_file", f);
    added.put("status", 1);
    GenericData.Record existing = new GenericData.Record(schema);
    existing.put("data_file", f);
    existing.put("status", 0);
    existing.put("snapshot_id", 3L);
    existing.put("sequence_number", 2L);
    File file = new File(temp.getRoot(), "py.avro");
    writeRaw(file, schema, Map.of("format-version", "2", "content", "deletes"), List.of(added, existing));

    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).add("ts", TimeTransforms.day(), null).build();
    ManifestFile manifest = ManifestFile.builder(file.toURI().toString()).withContent(ManifestContent.DELETES)
        .withSequenceNumber(7L).withMinSequenceNumber(2L).withSnapshotId(70L).build();
    List<ManifestEntry<DeleteFile>> entries = ManifestReader.readDeletes(IO.newInputFile(file.toURI().toString()),
        manifest, Map.of(0, spec));
    ManifestEntry<DeleteFile> a = entries.get(0);
    assertEquals(ManifestEntry.Status.ADDED, a.status());
    assertEquals(Long.valueOf(70L), a.snapshotId());
    assertEquals(Long.valueOf(7L), a.dataSequenceNumber());
    assertEquals(Long.valueOf(7L), a.fileSequenceNumber());
    assertEquals(FileContent.EQUALITY_DELETES, a.file().content());
    assertEquals(FileFormat.PARQUET, a.file().format());
    assertEquals(List.of(1, 2), a.file().equalityFieldIds());
    assertEquals(PartitionData.of(19723), a.file().partition());
    assertEquals(Map.of(1, 2L), a.file().valueCounts());
    assertTrue(a.file().lowerBounds().isEmpty());
    ManifestEntry<DeleteFile> e = entries.get(1);
    assertEquals(Long.valueOf(3L), e.snapshotId());
    assertEquals(Long.valueOf(2L), e.dataSequenceNumber());
    assertNull("writer without field 4: unknown file sequence number", e.fileSequenceNumber());
  }

  static GenericRecord entry(Schema schema, int status, Long snapshotId, Long seq) {
    Schema fileSchema = schema.getField("data_file").schema();
    GenericData.Record f = new GenericData.Record(fileSchema);
    f.put("content", 0);
    f.put("file_path", "file:/wh/t/data/a.parquet");
    f.put("file_format", "PARQUET");
    f.put("partition", new GenericData.Record(fileSchema.getField("partition").schema()));
    f.put("record_count", 1L);
    f.put("file_size_in_bytes", 10L);
    GenericData.Record e = new GenericData.Record(schema);
    e.put("status", status);
    e.put("snapshot_id", snapshotId);
    e.put("sequence_number", seq);
    e.put("file_sequence_number", seq);
    e.put("data_file", f);
    return e;
  }

  static void writeRaw(File file, Schema schema, Map<String, String> meta, List<GenericRecord> records)
      throws Exception {
    try (DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
      w.setCodec(CodecFactory.deflateCodec(6));
      meta.forEach(w::setMeta);
      w.create(schema, file);
      for (GenericRecord r : records) {
        w.append(r);
      }
    }
  }
}
