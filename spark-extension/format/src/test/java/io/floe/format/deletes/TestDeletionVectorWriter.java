package io.floe.format.deletes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Many deletion vectors in one Puffin file, with the manifest entries of docs/format.md, 'Deletion vectors'. */
public class TestDeletionVectorWriter {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get())));
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("region").withSpecId(3).build();

  private final LocalFileIO io = new LocalFileIO();

  private static DataFile dataFile(String path, String region) {
    return DataFile.builder(SPEC).withPath(path).withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.of(region)).withRecordCount(1000).withFileSizeInBytes(12345).build();
  }

  private static RoaringPositionBitmap positions(long... values) {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    for (long v : values) {
      bitmap.add(v);
    }
    return bitmap;
  }

  private String location(String name) {
    return new File(temp.getRoot(), name).toURI().toString();
  }

  @Test
  public void writesOneBlobPerDataFileAndDescribesEachAsAManifestEntry() throws Exception {
    String location = location("dvs.puffin");
    DataFile a = dataFile("file:/wh/t/data/region=eu/a.parquet", "eu");
    DataFile b = dataFile("file:/wh/t/data/region=us/b.parquet", "us");
    RoaringPositionBitmap aPositions = positions(0, 5, 999);
    RoaringPositionBitmap bPositions = positions(7, (1L << 32) + 1);
    List<DeleteFile> dvs;
    try (DeletionVectorWriter writer = new DeletionVectorWriter(io.newOutputFile(location), "Floe test")) {
      writer.add(a, SPEC, aPositions);
      writer.add(b, SPEC, bPositions);
      dvs = writer.finish();
    }
    long size = Files.size(LocalFileIO.toPath(location));
    assertEquals(2, dvs.size());
    for (DeleteFile dv : dvs) {
      assertEquals(FileContent.POSITION_DELETES, dv.content());
      assertEquals(FileFormat.PUFFIN, dv.format());
      assertEquals(location, dv.path());
      assertEquals(size, dv.fileSizeInBytes());
      assertEquals(3, dv.specId());
      assertNull(dv.sortOrderId());
    }
    assertEquals(a.path(), dvs.get(0).referencedDataFile());
    assertEquals(PartitionData.of("eu"), dvs.get(0).partition());
    assertEquals(3, dvs.get(0).recordCount());
    assertEquals(b.path(), dvs.get(1).referencedDataFile());
    assertEquals(PartitionData.of("us"), dvs.get(1).partition());
    assertEquals(2, dvs.get(1).recordCount());

    // each entry's offset and size locate exactly its vector
    RoaringPositionBitmap readA = read(location, dvs.get(0)).positions();
    RoaringPositionBitmap readB = read(location, dvs.get(1)).positions();
    assertEquals(positions(0, 5, 999), readA);
    assertEquals(positions(7, (1L << 32) + 1), readB);
    assertTrue(dvs.get(0).contentOffset() >= 4);
    assertEquals(dvs.get(0).contentOffset() + dvs.get(0).contentSizeInBytes(), (long) dvs.get(1).contentOffset());
  }

  private DeletionVector read(String location, DeleteFile dv) {
    return DeletionVector.read(io.newInputFile(location), dv.contentOffset(), dv.contentSizeInBytes(),
        dv.recordCount());
  }

  @Test
  public void footerListsEveryBlobWithTheDeletionVectorProperties() {
    String location = location("footer.puffin");
    DataFile a = dataFile("file:/wh/t/data/region=eu/a.parquet", "eu");
    DataFile b = dataFile("file:/wh/t/data/region=eu/b.parquet", "eu");
    List<DeleteFile> dvs;
    try (DeletionVectorWriter writer = new DeletionVectorWriter(io.newOutputFile(location), "Floe test")) {
      writer.add(a, SPEC, positions(1));
      writer.add(b, SPEC, positions(2, 3, 4, 5));
      dvs = writer.finish();
    }
    PuffinReader reader = Puffin.read(io.newInputFile(location)).build();
    assertEquals("Floe test", reader.fileMetadata().properties().get("created-by"));
    assertTrue(reader.footerSize() > 16); // read without asking for decompression: the footer is plain
    List<BlobMetadata> blobs = reader.fileMetadata().blobs();
    assertEquals(2, blobs.size());
    for (int i = 0; i < 2; i++) {
      BlobMetadata blob = blobs.get(i);
      DeleteFile dv = dvs.get(i);
      assertEquals("deletion-vector-v1", blob.type());
      assertEquals(List.of(2147483645), blob.inputFields());
      assertEquals(-1, blob.snapshotId());
      assertEquals(-1, blob.sequenceNumber());
      assertNull(blob.compressionCodec());
      assertEquals(Map.of("referenced-data-file", dv.referencedDataFile(),
          "cardinality", Long.toString(dv.recordCount())), blob.properties());
      assertEquals((long) dv.contentOffset(), blob.offset());
      assertEquals((long) dv.contentSizeInBytes(), blob.length());
    }
    // the blob bytes the footer points at are the vector (what pyiceberg reads)
    byte[] second = reader.readBlob(blobs.get(1));
    assertEquals(positions(2, 3, 4, 5), DeletionVector.deserialize(second, 4, "blob").positions());
  }

  @Test
  public void rejectsASecondVectorForTheSameDataFileAnEmptyVectorAndDeleteFiles() {
    DataFile a = dataFile("file:/wh/t/data/a.parquet", "eu");
    try (DeletionVectorWriter writer = new DeletionVectorWriter(io.newOutputFile(location("bad.puffin")), "t")) {
      writer.add(a, SPEC, positions(1));
      IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
          () -> writer.add(a, SPEC, positions(2)));
      assertTrue(twice.getMessage(), twice.getMessage().contains("second deletion vector for " + a.path()));
      IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
          () -> writer.add(dataFile("file:/wh/t/data/b.parquet", "eu"), SPEC, positions()));
      assertTrue(empty.getMessage(), empty.getMessage().contains("empty deletion vector"));
      // a delete file cannot be passed at all: add takes a DataFile (a compile error, no runtime check)
      PartitionSpec other = PartitionSpec.builderFor(SCHEMA).identity("region").withSpecId(4).build();
      assertThrows(IllegalArgumentException.class,
          () -> writer.add(dataFile("file:/wh/t/data/c.parquet", "eu"), other, positions(1)));
      assertEquals(1, writer.finish().size());
      assertThrows(IllegalStateException.class,
          () -> writer.add(dataFile("file:/wh/t/data/e.parquet", "eu"), SPEC, positions(1)));
    }
  }

  @Test
  public void unpartitionedDataFilesGetTheEmptyPartition() {
    PartitionSpec unpartitioned = PartitionSpec.unpartitioned();
    DataFile a = DataFile.builder(unpartitioned).withPath("file:/wh/t/data/a.parquet").withFormat(FileFormat.PARQUET)
        .withRecordCount(10).withFileSizeInBytes(100).build();
    List<DeleteFile> dvs;
    try (DeletionVectorWriter writer = new DeletionVectorWriter(io.newOutputFile(location("u.puffin")), "t")) {
      writer.add(a, unpartitioned, positions(9));
      dvs = writer.finish();
    }
    assertEquals(0, dvs.get(0).specId());
    assertEquals(0, dvs.get(0).partition().size());
  }
}
