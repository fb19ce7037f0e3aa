package io.floe.format.scan;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.Test;

/**
 * Which delete files apply to a data file (docs/format.md, 'Sequence numbers and which deletes apply'),
 * by sequence number, path and partition.
 */
public class TestDeleteFileIndex {
  private static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "b", Types.BinaryType.get())));
  private static final PartitionSpec BY_B = PartitionSpec.builderFor(SCHEMA).identity("b").withSpecId(0).build();
  private static final PartitionSpec UNPARTITIONED = PartitionSpec.unpartitioned();
  private static final Map<Integer, PartitionSpec> SPECS = Map.of(0, BY_B);

  private static PartitionData part(int b) {
    return PartitionData.of(ByteBuffer.wrap(new byte[] {(byte) b}));
  }

  private static DeleteFile.Builder file(String path, FileContent content, FileFormat format, PartitionData p) {
    return DeleteFile.builder(BY_B).withContent(content).withPath(path).withFormat(format).withPartition(p)
        .withRecordCount(1).withFileSizeInBytes(10);
  }

  private static DataFile data(String path, PartitionData p) {
    return DataFile.builder(BY_B).withPath(path).withFormat(FileFormat.PARQUET).withPartition(p)
        .withRecordCount(1).withFileSizeInBytes(10).build();
  }

  private static ManifestEntry<DeleteFile> entry(long seq, DeleteFile f) {
    return new ManifestEntry<>(ManifestEntry.Status.ADDED, 1L, seq, seq, f);
  }

  private static DeleteFile dv(String name, String dataPath, PartitionData p) {
    return file(name, FileContent.POSITION_DELETES, FileFormat.PUFFIN, p).withReferencedDataFile(dataPath)
        .withContentOffset(4L).withContentSizeInBytes(30L).build();
  }

  private static DeleteFile positions(String name, String dataPath, PartitionData p) {
    return file(name, FileContent.POSITION_DELETES, FileFormat.PARQUET, p).withReferencedDataFile(dataPath).build();
  }

  private static DeleteFile equality(String name, PartitionData p) {
    return file(name, FileContent.EQUALITY_DELETES, FileFormat.PARQUET, p).withEqualityFieldIds(List.of(1)).build();
  }

  private static List<String> applied(DeleteFileIndex index, long seq, DataFile f) {
    return index.forDataFile(seq, f).stream().map(DeleteFile::path).sorted().collect(Collectors.toList());
  }

  @Test
  public void deletionVectorsApplyToTheirFileFromTheSameSequenceNumberOn() {
    DataFile a = data("a", part(1));
    DataFile b = data("b", part(1));
    DeleteFileIndex index = new DeleteFileIndex(List.of(entry(3, dv("dv-a", "a", part(1)))), SPECS);
    assertEquals(List.of("dv-a"), applied(index, 3, a));
    assertEquals(List.of("dv-a"), applied(index, 2, a));
    assertEquals(List.of(), applied(index, 4, a)); // data rewritten after the DV
    assertEquals(List.of(), applied(index, 1, b));
  }

  @Test
  public void positionDeletesAreIgnoredWhenADeletionVectorApplies() {
    DataFile a = data("a", part(1));
    DeleteFileIndex index = new DeleteFileIndex(List.of(
        entry(2, positions("pos-a", "a", part(1))), entry(3, dv("dv-a", "a", part(1)))), SPECS);
    assertEquals(List.of("dv-a"), applied(index, 1, a));
    assertEquals(List.of(), applied(index, 4, a));
  }

  @Test
  public void fileScopedPositionDeletesApplyOnlyToTheirPath() {
    DataFile a = data("file:/t/a.parquet", part(1));
    DataFile sameNameOtherForm = data("file:///t/a.parquet", part(1));
    DeleteFileIndex index = new DeleteFileIndex(List.of(
        entry(2, positions("pos-a", "file:/t/a.parquet", part(1)))), SPECS);
    assertEquals(List.of("pos-a"), applied(index, 2, a)); // same commit: applies
    assertEquals(List.of(), applied(index, 3, a));
    assertEquals(List.of(), applied(index, 1, sameNameOtherForm)); // paths are opaque strings
  }

  @Test
  public void positionDeletesWithEqualPathBoundsAreFileScoped() {
    ByteBuffer path = ByteBuffer.wrap("a".getBytes(StandardCharsets.UTF_8));
    DeleteFile bounded = file("pos", FileContent.POSITION_DELETES, FileFormat.PARQUET, part(1))
        .withMetrics(new Metrics(1L, null, null, null, null, Map.of(2147483546, path), Map.of(2147483546, path)))
        .build();
    DeleteFileIndex index = new DeleteFileIndex(List.of(entry(2, bounded)), SPECS);
    assertEquals(List.of("pos"), applied(index, 1, data("a", part(1))));
    assertEquals(List.of(), applied(index, 1, data("b", part(1))));
  }

  @Test
  public void partitionScopedDeletesMatchBinaryPartitionValuesByContent() {
    // two binary values of the same length: their string forms used to be equal
    DataFile in1 = data("a", part(1));
    DataFile in2 = data("b", part(2));
    DataFile copyOf1 = data("c", PartitionData.of(ByteBuffer.wrap(new byte[] {1})));
    DeleteFile scoped = file("pos-1", FileContent.POSITION_DELETES, FileFormat.PARQUET, part(1)).build();
    DeleteFileIndex index = new DeleteFileIndex(List.of(entry(2, scoped), entry(3, equality("eq-1", part(1)))), SPECS);
    assertEquals(List.of("eq-1", "pos-1"), applied(index, 1, in1));
    assertEquals(List.of("eq-1", "pos-1"), applied(index, 2, copyOf1));
    assertEquals(List.of(), applied(index, 1, in2));
  }

  @Test
  public void equalityDeletesApplyOnlyToOlderDataAndGloballyWhenUnpartitioned() {
    PartitionSpec global = UNPARTITIONED.withSpecId(1);
    DeleteFile eqGlobal = DeleteFile.builder(global).withContent(FileContent.EQUALITY_DELETES).withPath("eq-g")
        .withFormat(FileFormat.PARQUET).withRecordCount(1).withFileSizeInBytes(1).withEqualityFieldIds(List.of(1))
        .build();
    DeleteFileIndex index = new DeleteFileIndex(List.of(entry(5, eqGlobal), entry(5, equality("eq-1", part(1)))),
        Map.of(0, BY_B, 1, global));
    assertEquals(List.of("eq-1", "eq-g"), applied(index, 4, data("a", part(1))));
    assertEquals(List.of(), applied(index, 5, data("a", part(1)))); // strictly older only
    assertEquals(List.of("eq-g"), applied(index, 4, data("b", part(2))));
  }

  @Test
  public void twoDeletionVectorsForOneFileAreAnError() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> new DeleteFileIndex(List.of(
        entry(2, dv("dv1", "a", part(1))), entry(3, dv("dv2", "a", part(1)))), SPECS));
    assertTrue(e.getMessage(), e.getMessage().contains("more than one deletion vector for data file a"));
  }
}
