package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Conversions;
import io.floe.format.types.Types;
import java.io.File;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestManifestRoundTrip {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static final long TS = 1_704_067_200_000_000L; // 2024-01-01T00:00:00Z in micros

  @Test
  public void identityPartitionsAndEveryStatusSurviveRoundTrip() throws Exception {
    PartitionSpec spec = identitySpec();
    DataFile a = dataFile(spec, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), TS);
    DataFile b = dataFile(spec, "b", 20, 2, null, 19724, new BigDecimal("-1.00"), TS + 1);
    DataFile c = dataFile(spec, "c", 30, 3, "c", null, new BigDecimal("0.00"), null);
    DataFile d = dataFile(spec, "d", 40, -4, "d", 19000, new BigDecimal("9999999.99"), TS - 1);
    OutputFile out = newFile(temp.getRoot(), "m0.avro");

    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, out, 42L, ManifestContent.DATA);
    writer.add(a);
    writer.add(b, 3L);
    writer.existing(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 7L, 2L, 2L, c));
    writer.delete(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 7L, 1L, 1L, d));
    ManifestFile written = close(writer);

    assertEquals(ManifestFile.UNASSIGNED_SEQ, written.sequenceNumber());
    assertEquals("explicit seqs of live entries", 2L, written.minSequenceNumber());
    assertEquals(Long.valueOf(42L), written.snapshotId());
    assertEquals(new File(temp.getRoot(), "m0.avro").length(), written.length());
    assertEquals(Integer.valueOf(2), written.addedFilesCount());
    assertEquals(Integer.valueOf(1), written.existingFilesCount());
    assertEquals(Integer.valueOf(1), written.deletedFilesCount());
    assertEquals(Long.valueOf(30L), written.addedRowsCount());
    assertEquals(Long.valueOf(30L), written.existingRowsCount());
    assertEquals(Long.valueOf(40L), written.deletedRowsCount());

    List<PartitionFieldSummary> summaries = written.partitions();
    assertEquals(5, summaries.size());
    assertSummary(summaries.get(0), false, Types.IntegerType.get(), -4, 3);
    assertSummary(summaries.get(1), true, Types.StringType.get(), "a", "d");
    assertSummary(summaries.get(2), true, Types.DateType.get(), 19000, 19724);
    assertSummary(summaries.get(3), false, Types.DecimalType.of(9, 2), new BigDecimal("-1.00"),
        new BigDecimal("9999999.99"));
    assertSummary(summaries.get(4), true, Types.TimestampType.withZone(), TS - 1, TS + 1);

    ManifestFile listed = written.withSequenceNumbers(5L, 2L);
    List<ManifestEntry<?>> entries = ManifestReader.read(out.toInputFile(), listed, Map.of(0, spec));
    assertEquals(4, entries.size());
    assertEntry(entries.get(0), ManifestEntry.Status.ADDED, 42L, 5L, 5L, a);
    assertEntry(entries.get(1), ManifestEntry.Status.ADDED, 42L, 3L, 5L, b);
    assertEntry(entries.get(2), ManifestEntry.Status.EXISTING, 7L, 2L, 2L, c);
    assertEntry(entries.get(3), ManifestEntry.Status.DELETED, 42L, 1L, 1L, d);
    assertEquals(3, ManifestReader.liveEntries(out.toInputFile(), listed, Map.of(0, spec)).size());

    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new File(temp.getRoot(), "m0.avro"),
        new GenericDatumReader<>())) {
      assertEquals("deflate", reader.getMetaString("avro.codec"));
      assertEquals("2", reader.getMetaString("format-version"));
      assertEquals("data", reader.getMetaString("content"));
      assertEquals("0", reader.getMetaString("partition-spec-id"));
      assertEquals("0", reader.getMetaString("schema-id"));
      assertTrue(reader.getMetaString("schema").contains("\"amount\""));
      assertTrue(reader.getMetaString("partition-spec").startsWith("[{\"name\":\"id\",\"transform\":\"identity\""));
      GenericRecord first = reader.next();
      assertEquals("PARQUET", ((GenericRecord) first.get("data_file")).get("file_format").toString());
    }
  }

  @Test
  public void transformsUuidBinaryAndDoubleRoundTrip() {
    PartitionSpec spec = transformSpec();
    UUID uuid = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");
    DataFile a = dataFile(spec, "a", 5, 19723, 3, uuid, ByteBuffer.wrap(new byte[] {0, 1, 2}), 1.5);
    DataFile b = dataFile(spec, "b", 6, null, 15, null, null, Double.NaN);
    OutputFile out = newFile(temp.getRoot(), "m1.avro");
    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, out, 1L, ManifestContent.DATA);
    writer.add(a);
    writer.add(b);
    ManifestFile m = close(writer).withSequenceNumbers(1L, 1L);

    List<ManifestEntry<?>> entries = ManifestReader.read(out.toInputFile(), m, Map.of(1, spec));
    assertEquals(a.partition(), entries.get(0).file().partition());
    assertEquals(b.partition(), entries.get(1).file().partition());
    PartitionFieldSummary score = m.partitions().get(4);
    assertTrue(score.containsNaN());
    assertFalse(score.containsNull());
    assertEquals(1.5, Conversions.fromByteBuffer(Types.DoubleType.get(), score.lowerBound()));
    assertEquals(1.5, Conversions.fromByteBuffer(Types.DoubleType.get(), score.upperBound()));
    assertEquals(19723, Conversions.fromByteBuffer(Types.DateType.get(), m.partitions().get(0).lowerBound()));
  }

  @Test
  public void v3DeleteVectorEntryRoundTrip() {
    PartitionSpec spec = identitySpec();
    PartitionData partition = PartitionData.of(1, "a", 19723, new BigDecimal("12.34"), TS);
    DeleteFile dv = DeleteFile.builder(spec)
        .withContent(FileContent.POSITION_DELETES)
        .withPath("file:/tmp/warehouse/db/t/data/dv.puffin")
        .withFormat(FileFormat.PUFFIN)
        .withPartition(partition)
        .withRecordCount(3)
        .withFileSizeInBytes(500)
        .withReferencedDataFile("file:/tmp/warehouse/db/t/data/a.parquet")
        .withContentOffset(4L)
        .withContentSizeInBytes(42L)
        .build();
    DeleteFile eq = DeleteFile.builder(spec)
        .withContent(FileContent.EQUALITY_DELETES)
        .withPath("file:/tmp/warehouse/db/t/data/eq.parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withRecordCount(1)
        .withFileSizeInBytes(50)
        .withEqualityFieldIds(List.of(1, 2))
        .build();
    OutputFile out = newFile(temp.getRoot(), "d.avro");
    ManifestWriter writer = ManifestWriter.write(3, spec, SCHEMA, out, 9L, ManifestContent.DELETES);
    writer.add(dv);
    writer.add(eq);
    ManifestFile m = close(writer).withSequenceNumbers(4L, 4L).withFirstRowId(null);
    assertEquals(ManifestContent.DELETES, m.content());

    List<ManifestEntry<DeleteFile>> entries = ManifestReader.readDeletes(out.toInputFile(), m, Map.of(0, spec));
    DeleteFile readDv = entries.get(0).file();
    assertEquals(FileContent.POSITION_DELETES, readDv.content());
    assertEquals(FileFormat.PUFFIN, readDv.format());
    assertEquals("file:/tmp/warehouse/db/t/data/a.parquet", readDv.referencedDataFile());
    assertEquals(Long.valueOf(4L), readDv.contentOffset());
    assertEquals(Long.valueOf(42L), readDv.contentSizeInBytes());
    assertNull(readDv.sortOrderId());
    assertEquals(List.of(1, 2), entries.get(1).file().equalityFieldIds());
    assertEquals(FileContent.EQUALITY_DELETES, entries.get(1).file().content());
  }

  @Test(expected = IllegalArgumentException.class)
  public void dataManifestRejectsDeleteFiles() {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    DeleteFile del = DeleteFile.builder(spec).withContent(FileContent.POSITION_DELETES)
        .withPath("file:/x.parquet").withFormat(FileFormat.PARQUET).withRecordCount(1).withFileSizeInBytes(1).build();
    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, newFile(temp.getRoot(), "x.avro"), 1L,
        ManifestContent.DATA);
    writer.add(del);
  }

  private static void assertSummary(PartitionFieldSummary s, boolean nulls, io.floe.format.types.Type type,
      Object lower, Object upper) {
    assertEquals(nulls, s.containsNull());
    assertEquals(Boolean.FALSE, s.containsNaN());
    assertEquals(lower, Conversions.fromByteBuffer(type, s.lowerBound()));
    assertEquals(upper, Conversions.fromByteBuffer(type, s.upperBound()));
  }

  static void assertEntry(ManifestEntry<?> e, ManifestEntry.Status status, Long snapshotId, Long dataSeq,
      Long fileSeq, ContentFile expected) {
    assertEquals(status, e.status());
    assertEquals(snapshotId, e.snapshotId());
    assertEquals(dataSeq, e.dataSequenceNumber());
    assertEquals(fileSeq, e.fileSequenceNumber());
    ContentFile f = e.file();
    assertEquals(expected.getClass(), f.getClass());
    assertEquals(expected.path(), f.path());
    assertEquals(expected.content(), f.content());
    assertEquals(expected.format(), f.format());
    assertEquals(expected.specId(), f.specId());
    assertEquals(expected.partition(), f.partition());
    for (int i = 0; i < f.partition().size(); i++) {
      Object v = expected.partition().get(i);
      assertEquals(v == null ? null : v.getClass(), f.partition().get(i) == null ? null : f.partition().get(i).getClass());
    }
    assertEquals(expected.recordCount(), f.recordCount());
    assertEquals(expected.fileSizeInBytes(), f.fileSizeInBytes());
    assertEquals(expected.columnSizes(), f.columnSizes());
    assertEquals(expected.valueCounts(), f.valueCounts());
    assertEquals(expected.nullValueCounts(), f.nullValueCounts());
    assertEquals(expected.nanValueCounts(), f.nanValueCounts());
    assertEquals(expected.lowerBounds(), f.lowerBounds());
    assertEquals(expected.upperBounds(), f.upperBounds());
    assertEquals(expected.splitOffsets(), f.splitOffsets());
    assertEquals(expected.sortOrderId(), f.sortOrderId());
    if (expected instanceof DeleteFile deletes) {
      assertEquals(deletes.referencedDataFile(), ((DeleteFile) f).referencedDataFile());
    }
  }
}
