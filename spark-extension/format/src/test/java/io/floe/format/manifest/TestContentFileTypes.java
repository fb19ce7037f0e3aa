package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.FloeFormatException;
import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Data files and delete files are separate types: the builders refuse the other kind's content, and
 * manifests read back {@link DataFile}s from data manifests and {@link DeleteFile}s, with every
 * field, from delete manifests.
 */
public class TestContentFileTypes {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static final PartitionData PARTITION = PartitionData.of(1, "a", 19723, new BigDecimal("12.34"),
      1_704_067_200_000_000L);

  private static DeleteFile.Builder deletes(PartitionSpec spec, String name) {
    return DeleteFile.builder(spec).withPath("file:/tmp/warehouse/db/t/data/" + name).withPartition(PARTITION)
        .withRecordCount(3).withFileSizeInBytes(500);
  }

  @Test
  public void deleteFileBuilderRefusesDataContent() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DeleteFile.builder(identitySpec()).withContent(FileContent.DATA));
    assertTrue(e.getMessage(), e.getMessage().contains("DATA") && e.getMessage().contains("DataFile.builder"));
  }

  @Test
  public void deleteFileBuilderRequiresAContentAndEqualityIds() {
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> deletes(identitySpec(), "d.parquet").withFormat(FileFormat.PARQUET).build());
    assertTrue(none.getMessage(), none.getMessage().contains("content is required"));
    IllegalArgumentException noIds = assertThrows(IllegalArgumentException.class,
        () -> deletes(identitySpec(), "eq.parquet").withFormat(FileFormat.PARQUET)
            .withContent(FileContent.EQUALITY_DELETES).build());
    assertTrue(noIds.getMessage(), noIds.getMessage().contains("equality field ids are required"));
  }

  @Test
  public void dataFileBuilderOffersNoContentAndNoDeleteFields() {
    DataFile data = dataFile(identitySpec(), "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 0L);
    assertEquals(FileContent.DATA, data.content());
    for (String deleteOnly : List.of("withContent", "withEqualityFieldIds", "withReferencedDataFile",
        "withContentOffset", "withContentSizeInBytes")) {
      assertTrue(deleteOnly, java.util.Arrays.stream(DataFile.Builder.class.getMethods())
          .noneMatch(m -> m.getName().equals(deleteOnly)));
    }
    assertTrue(java.util.Arrays.stream(DeleteFile.Builder.class.getMethods())
        .noneMatch(m -> m.getName().equals("withFirstRowId")));
  }

  @Test
  public void deleteManifestReadsBackDeleteFilesWithEveryField() {
    PartitionSpec spec = identitySpec();
    DeleteFile dv = deletes(spec, "dv.puffin").withContent(FileContent.POSITION_DELETES)
        .withFormat(FileFormat.PUFFIN)
        .withMetrics(metrics(3))
        .withKeyMetadata(ByteBuffer.wrap(new byte[] {7, 8}))
        .withSplitOffsets(List.of(4L))
        .withSortOrderId(0)
        .withReferencedDataFile("file:/tmp/warehouse/db/t/data/a.parquet")
        .withContentOffset(4L)
        .withContentSizeInBytes(42L)
        .build();
    DeleteFile positions = deletes(spec, "pos.parquet").withContent(FileContent.POSITION_DELETES)
        .withFormat(FileFormat.PARQUET).withMetrics(metrics(2)).withSplitOffsets(List.of(4L, 100L)).build();
    DeleteFile equality = deletes(spec, "eq.parquet").withContent(FileContent.EQUALITY_DELETES)
        .withFormat(FileFormat.PARQUET).withEqualityFieldIds(List.of(1, 2)).withSortOrderId(1).build();
    OutputFile out = newFile(temp.getRoot(), "deletes.avro");
    ManifestWriter writer = ManifestWriter.write(3, spec, SCHEMA, out, 9L, ManifestContent.DELETES);
    writer.add(dv);
    writer.add(positions);
    writer.existing(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 5L, 2L, 2L, equality));
    ManifestFile listed = close(writer).withSequenceNumbers(4L, 2L).withFirstRowId(null);

    List<ManifestEntry<DeleteFile>> entries = ManifestReader.readDeletes(out.toInputFile(), listed,
        Map.of(0, spec));
    assertEquals(3, entries.size());
    List<DeleteFile> expected = List.of(dv, positions, equality);
    for (int i = 0; i < expected.size(); i++) {
      assertSameDeleteFile(expected.get(i), entries.get(i).file());
    }
    assertEquals(Long.valueOf(4L), entries.get(0).dataSequenceNumber());
    assertEquals(Long.valueOf(2L), entries.get(2).dataSequenceNumber());
    // the generic read gives the same typed files
    for (ManifestEntry<?> e : ManifestReader.read(out.toInputFile(), listed, Map.of(0, spec))) {
      assertTrue(e.file().path(), e.file() instanceof DeleteFile);
    }
  }

  @Test
  public void manifestsAreReadOnlyAsTheContentTheyHold() {
    PartitionSpec spec = identitySpec();
    OutputFile dataOut = newFile(temp.getRoot(), "data.avro");
    ManifestWriter data = ManifestWriter.write(2, spec, SCHEMA, dataOut, 1L, ManifestContent.DATA);
    data.add(dataFile(spec, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 0L));
    ManifestFile dataManifest = close(data).withSequenceNumbers(1L, 1L);
    assertTrue(ManifestReader.readData(dataOut.toInputFile(), dataManifest, Map.of(0, spec)).get(0).file()
        instanceof DataFile);
    assertThrows(IllegalArgumentException.class,
        () -> ManifestReader.readDeletes(dataOut.toInputFile(), dataManifest, Map.of(0, spec)));

    OutputFile deleteOut = newFile(temp.getRoot(), "deletes.avro");
    ManifestWriter deletes = ManifestWriter.write(2, spec, SCHEMA, deleteOut, 1L, ManifestContent.DELETES);
    DataFile notADelete = dataFile(spec, "b", 10, 1, "a", 19723, new BigDecimal("12.34"), 0L);
    assertThrows(IllegalArgumentException.class, () -> deletes.add(notADelete));
    deletes.add(deletes(spec, "pos.parquet").withContent(FileContent.POSITION_DELETES)
        .withFormat(FileFormat.PARQUET).build());
    ManifestFile deleteManifest = close(deletes).withSequenceNumbers(1L, 1L);
    assertThrows(IllegalArgumentException.class,
        () -> ManifestReader.readData(deleteOut.toInputFile(), deleteManifest, Map.of(0, spec)));

    // a manifest list entry that calls a delete manifest a data manifest is refused, naming the file
    ManifestFile mislabelled = ManifestFile.builder(deleteManifest.path()).withContent(ManifestContent.DATA)
        .withPartitionSpecId(0).withSequenceNumber(1L).withMinSequenceNumber(1L).withSnapshotId(1L).build();
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> ManifestReader.read(deleteOut.toInputFile(), mislabelled, Map.of(0, spec)));
    assertTrue(e.getMessage(), e.getMessage().contains("pos.parquet") && e.getMessage().contains("POSITION_DELETES"));
  }

  private static void assertSameDeleteFile(DeleteFile expected, DeleteFile actual) {
    assertEquals(expected.content(), actual.content());
    assertEquals(expected.path(), actual.path());
    assertEquals(expected.format(), actual.format());
    assertEquals(expected.specId(), actual.specId());
    assertEquals(expected.partition(), actual.partition());
    assertEquals(expected.recordCount(), actual.recordCount());
    assertEquals(expected.fileSizeInBytes(), actual.fileSizeInBytes());
    assertEquals(expected.columnSizes(), actual.columnSizes());
    assertEquals(expected.valueCounts(), actual.valueCounts());
    assertEquals(expected.nullValueCounts(), actual.nullValueCounts());
    assertEquals(expected.nanValueCounts(), actual.nanValueCounts());
    assertEquals(expected.lowerBounds(), actual.lowerBounds());
    assertEquals(expected.upperBounds(), actual.upperBounds());
    assertEquals(expected.keyMetadata(), actual.keyMetadata());
    assertEquals(expected.splitOffsets(), actual.splitOffsets());
    assertEquals(expected.sortOrderId(), actual.sortOrderId());
    assertEquals(expected.equalityFieldIds(), actual.equalityFieldIds());
    assertEquals(expected.referencedDataFile(), actual.referencedDataFile());
    assertEquals(expected.contentOffset(), actual.contentOffset());
    assertEquals(expected.contentSizeInBytes(), actual.contentSizeInBytes());
  }
}
