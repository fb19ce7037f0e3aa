package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Manifest entries decoded straight from the Avro blocks ({@link DirectEntryReader}) are the very
 * entries the generic-record path builds, for data and delete manifests of the versions Floe writes (2, 3) and of every
 * partition spec, and for the manifests Apache Iceberg 1.11 (v1 to v3) and pyiceberg 0.12 (v1, v2) write
 * (resources/manifests, see its README), so planning selects the same files whichever path read them.
 */
public class TestDirectEntryReader {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void dataManifestsDecodeTheSameEntriesAsGenericRecords() throws Exception {
    for (int version = 2; version <= 3; version++) {
      PartitionSpec identity = identitySpec();
      ManifestWriter w = ManifestWriter.write(version, identity, SCHEMA, newFile(temp.getRoot(), "i" + version + ".avro"),
          100L, ManifestContent.DATA);
      w.add(dataFile(identity, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 1_704_067_200_000_000L));
      w.add(dataFile(identity, "b", 20, 2, null, 19724, new BigDecimal("-1.00"), null));
      w.existing(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 7L, 2L, 2L,
          dataFile(identity, "c", 30, 3, "c", null, new BigDecimal("0.00"), 5L)));
      w.delete(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 7L, 1L, 1L,
          dataFile(identity, "d", 40, 4, "d", 19000, new BigDecimal("9.99"), 6L)));
      assertSameEntries(close(w), Map.of(0, identity), 4);

      PartitionSpec transforms = transformSpec();
      w = ManifestWriter.write(version, transforms, SCHEMA, newFile(temp.getRoot(), "t" + version + ".avro"), null,
          ManifestContent.DATA);
      w.add(dataFile(transforms, "e", 5, 19723, 3, java.util.UUID.fromString("00000000-0000-0000-0000-00000000000a"),
          ByteBuffer.wrap(new byte[] {1, 2}), 1.5d));
      w.add(dataFile(transforms, "f", 6, null, null, null, null, null));
      assertSameEntries(close(w), Map.of(1, transforms), 2);
    }
  }

  @Test
  public void deleteManifestsDecodeTheSameEntriesAsGenericRecords() throws Exception {
    for (int version = 2; version <= 3; version++) {
      PartitionSpec spec = identitySpec();
      ManifestWriter w = ManifestWriter.write(version, spec, SCHEMA, newFile(temp.getRoot(), "d" + version + ".avro"),
          100L, ManifestContent.DELETES);
      w.add(DeleteFile.builder(spec).withContent(FileContent.EQUALITY_DELETES).withPath("file:/t/data/eq.parquet")
          .withFormat(FileFormat.PARQUET).withPartition(dataFile(spec, "x", 1, 1, "a", 1, new BigDecimal("1.00"), 1L)
              .partition()).withRecordCount(3).withFileSizeInBytes(99).withEqualityFieldIds(List.of(1, 2)).build());
      if (version == 3) {
        w.add(DeleteFile.builder(spec).withContent(FileContent.POSITION_DELETES).withPath("file:/t/data/dv.puffin")
            .withFormat(FileFormat.PUFFIN).withPartition(dataFile(spec, "y", 1, 2, "b", 2, new BigDecimal("2.00"), 2L)
                .partition()).withRecordCount(2).withFileSizeInBytes(120)
            .withReferencedDataFile("file:/t/data/a.parquet").withContentOffset(4L).withContentSizeInBytes(40L).build());
      }
      assertSameEntries(close(w), Map.of(0, spec), version == 3 ? 2 : 1);
    }
  }

  /** The metric maps of the direct path are compact (ColumnMap), not a LinkedHashMap per file and metric. */
  @Test
  public void metricMapsOfTheDirectPathAreColumnMaps() throws Exception {
    PartitionSpec identity = identitySpec();
    ManifestWriter w = ManifestWriter.write(2, identity, SCHEMA, newFile(temp.getRoot(), "compact.avro"), 100L,
        ManifestContent.DATA);
    w.add(dataFile(identity, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 1_704_067_200_000_000L));
    ManifestFile m = close(w);
    ContentFile direct = ManifestReader.read(IO.newInputFile(m.path()), m, Map.of(0, identity)).get(0).file();
    ContentFile generic = ManifestReader.read(IO.newInputFile(m.path()), m, Map.of(0, identity),
        ManifestReader.Decoding.GENERIC).get(0).file();
    assertTrue(direct.valueCounts().size() > 1 && direct.lowerBounds().size() > 1);
    for (Map<Integer, ?> map : List.of(direct.columnSizes(), direct.valueCounts(), direct.nullValueCounts(),
        direct.lowerBounds(), direct.upperBounds())) {
      assertTrue(map.getClass().getName(), map instanceof ColumnMap);
    }
    assertEquals(generic.valueCounts(), direct.valueCounts());
    assertEquals(generic.lowerBounds(), direct.lowerBounds());
    assertEquals(generic.upperBounds(), direct.upperBounds());
  }

  /** Every shape Iceberg and pyiceberg write: versions, transforms, codecs, delete files, optional fields. */
  @Test
  public void manifestsOfOtherWritersDecodeTheSameEntriesAsGenericRecords() throws Exception {
    Set<String> seen = new TreeSet<>();
    for (String name : List.of("iceberg-v1-data-unpartitioned", "iceberg-v1-data-transforms",
        "iceberg-v2-data-unpartitioned", "iceberg-v2-data-transforms", "iceberg-v2-deletes-transforms",
        "iceberg-v3-data-unpartitioned", "iceberg-v3-data-transforms", "iceberg-v3-deletes-transforms",
        "pyiceberg-v1-data-transforms", "pyiceberg-v2-data-transforms", "pyiceberg-v2-deletes-transforms")) {
      File file = temp.newFile(name + ".avro");
      try (InputStream in = getClass().getResourceAsStream("/manifests/" + name + ".avro")) {
        assertNotNull(name, in);
        Files.copy(in, file.toPath(), StandardCopyOption.REPLACE_EXISTING);
      }
      AvroRecords avro = AvroRecords.readBlocks(IO.newInputFile(file.toURI().toString()), "manifest");
      int version = Integer.parseInt(avro.metadata("format-version"));
      ManifestContent content = name.contains("-deletes-") ? ManifestContent.DELETES : ManifestContent.DATA;
      ManifestFile m = ManifestFile.builder(file.toURI().toString()).withLength(file.length())
          .withPartitionSpecId(Integer.parseInt(avro.metadata("partition-spec-id"))).withContent(content)
          .withSequenceNumber(version == 1 ? 0 : 5).withMinSequenceNumber(version == 1 ? 0 : 1).withSnapshotId(100L)
          .withFirstRowId(version == 3 && content == ManifestContent.DATA ? 1000L : null).build();
      // no table specs: the spec comes from the file's own schema and partition-spec metadata
      List<String> direct = assertSameEntries(m, Map.of(), name.contains("-deletes-") && name.startsWith("py") ? 2
          : name.contains("-deletes-") ? 3 : 4);
      for (String entry : direct) {
        for (String field : List.of("key=[", "splits=[", "sort=1", "firstRowId=2000", "eq=[1, 2]",
            "ref=s3://b/t/data/full.parquet", "offset=4", "nans={6=1}", "lower={1=", "abc")) {
          if (entry.contains(field)) {
            seen.add(field);
          }
        }
      }
    }
    assertEquals("the fixtures carry every optional field", 10, seen.size());
  }

  @Test
  public void unusualShapesTakeTheGenericPath() {
    // counts as an Avro map with string keys (tolerated by the generic path), and a status written as a long
    String mapCounts = entrySchema("{\"name\": \"value_counts\", \"field-id\": 109, \"type\": "
        + "{\"type\": \"map\", \"values\": \"long\"}}", "\"int\"");
    String longStatus = entrySchema("{\"name\": \"value_counts\", \"field-id\": 109, \"type\": {\"type\": \"array\","
        + " \"items\": {\"type\": \"record\", \"name\": \"k119_v120\", \"fields\": [{\"name\": \"key\", \"type\": "
        + "\"int\", \"field-id\": 119}, {\"name\": \"value\", \"type\": \"long\", \"field-id\": 120}]}}}", "\"long\"");
    String specShape = entrySchema("{\"name\": \"value_counts\", \"field-id\": 109, \"type\": {\"type\": \"array\","
        + " \"items\": {\"type\": \"record\", \"name\": \"k119_v120\", \"fields\": [{\"name\": \"key\", \"type\": "
        + "\"int\", \"field-id\": 119}, {\"name\": \"value\", \"type\": \"long\", \"field-id\": 120}]}}}", "\"int\"");
    assertNull(DirectEntryReader.compile(new Schema.Parser().parse(mapCounts)));
    assertNull(DirectEntryReader.compile(new Schema.Parser().parse(longStatus)));
    assertNotNull(DirectEntryReader.compile(new Schema.Parser().parse(specShape)));
  }

  @Test
  public void theFirstFieldWithAnIdIsReadAndOtherFieldsAreSkipped() throws Exception {
    // in both records: a repeated id after the first, a field with neither id nor spec name, an unknown id
    Schema schema = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"manifest_entry\", \"fields\": ["
        + "{\"name\": \"extra\", \"type\": \"string\"},"
        + "{\"name\": \"status\", \"type\": \"int\", \"field-id\": 0},"
        + "{\"name\": \"status_again\", \"type\": \"int\", \"field-id\": 0},"
        + "{\"name\": \"data_file\", \"field-id\": 2, \"type\": {\"type\": \"record\", \"name\": \"r2\", \"fields\": ["
        + "{\"name\": \"file_path\", \"type\": \"string\", \"field-id\": 100},"
        + "{\"name\": \"other_path\", \"type\": \"string\", \"field-id\": 100},"
        + "{\"name\": \"unknown\", \"type\": \"long\", \"field-id\": 9999},"
        + "{\"name\": \"record_count\", \"type\": \"long\"}]}},"
        + "{\"name\": \"snapshot_id\", \"type\": \"long\", \"field-id\": 1}]}");
    org.apache.avro.generic.GenericRecord file = new org.apache.avro.generic.GenericData.Record(
        schema.getField("data_file").schema());
    file.put("file_path", "file:/t/a.parquet");
    file.put("other_path", "file:/t/b.parquet");
    file.put("unknown", 5L);
    file.put("record_count", 42L);
    org.apache.avro.generic.GenericRecord entry = new org.apache.avro.generic.GenericData.Record(schema);
    entry.put("extra", "x");
    entry.put("status", 1);
    entry.put("status_again", 2);
    entry.put("data_file", file);
    entry.put("snapshot_id", 7L);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    org.apache.avro.io.BinaryEncoder encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
    new org.apache.avro.generic.GenericDatumWriter<org.apache.avro.generic.GenericRecord>(schema).write(entry, encoder);
    encoder.flush();

    BlockDecoder in = new BlockDecoder(out.toByteArray());
    RawEntry e = DirectEntryReader.compile(schema).read(in);
    assertTrue("every byte read, skipped fields included", in.isEnd());
    assertEquals(Integer.valueOf(1), e.status);
    assertEquals(Long.valueOf(7L), e.snapshotId);
    assertEquals("file:/t/a.parquet", e.path);
    assertEquals("record_count by its spec name", Long.valueOf(42L), e.recordCount);
  }

  private static String entrySchema(String countsField, String statusType) {
    return "{\"type\": \"record\", \"name\": \"manifest_entry\", \"fields\": ["
        + "{\"name\": \"status\", \"type\": " + statusType + ", \"field-id\": 0},"
        + "{\"name\": \"data_file\", \"field-id\": 2, \"type\": {\"type\": \"record\", \"name\": \"r2\", \"fields\": ["
        + "{\"name\": \"file_path\", \"type\": \"string\", \"field-id\": 100}," + countsField + "]}}]}";
  }

  private List<String> assertSameEntries(ManifestFile m, Map<Integer, PartitionSpec> specs, int expected) {
    AvroRecords avro = AvroRecords.readBlocks(IO.newInputFile(m.path()), "manifest");
    assertNotNull("the direct path compiles the schema Floe writes", avro.directEntries());
    List<String> direct = describe(ManifestReader.read(IO.newInputFile(m.path()), m, specs));
    List<String> generic = describe(ManifestReader.read(IO.newInputFile(m.path()), m, specs,
        ManifestReader.Decoding.GENERIC));
    assertEquals(expected, direct.size());
    assertEquals(generic, direct);
    return direct;
  }

  private static List<String> describe(List<ManifestEntry<?>> entries) {
    List<String> out = new ArrayList<>();
    for (ManifestEntry<?> e : entries) {
      ContentFile f = e.file();
      StringBuilder s = new StringBuilder()
          .append(e.status()).append(' ').append(e.snapshotId()).append(' ').append(e.dataSequenceNumber())
          .append(' ').append(e.fileSequenceNumber()).append(' ').append(f.content()).append(' ').append(f.path())
          .append(' ').append(f.format()).append(' ').append(f.specId()).append(' ').append(f.partition())
          .append(' ').append(f.recordCount()).append(' ').append(f.fileSizeInBytes())
          .append(" sizes=").append(new TreeMap<>(f.columnSizes())).append(" values=")
          .append(new TreeMap<>(f.valueCounts())).append(" nulls=").append(new TreeMap<>(f.nullValueCounts()))
          .append(" nans=").append(new TreeMap<>(f.nanValueCounts())).append(" lower=").append(bytes(f.lowerBounds()))
          .append(" upper=").append(bytes(f.upperBounds())).append(" key=").append(f.keyMetadata() == null ? null : Arrays.toString(AvroRecords.bytes(f.keyMetadata())))
          .append(" splits=").append(f.splitOffsets()).append(" sort=").append(f.sortOrderId());
      if (f instanceof DataFile d) {
        s.append(" firstRowId=").append(d.firstRowId());
      } else if (f instanceof DeleteFile d) {
        s.append(" eq=").append(d.equalityFieldIds()).append(" ref=").append(d.referencedDataFile())
            .append(" offset=").append(d.contentOffset()).append(" size=").append(d.contentSizeInBytes());
      }
      out.add(s.toString());
    }
    return out;
  }

  private static Map<Integer, String> bytes(Map<Integer, ByteBuffer> bounds) {
    Map<Integer, String> out = new TreeMap<>();
    bounds.forEach((k, v) -> out.put(k, Arrays.toString(AvroRecords.bytes(v))));
    return out;
  }
}
