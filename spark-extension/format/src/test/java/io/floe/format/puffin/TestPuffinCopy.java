package io.floe.format.puffin;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import io.floe.format.deletes.DeletionVector;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.io.LocalFileIO;
import java.io.File;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Copying a Puffin file with new blob properties: what a table rename does to deletion vectors. */
public class TestPuffinCopy {
  private static final LocalFileIO IO = new LocalFileIO();

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private String location(String name) {
    return new File(temp.getRoot(), name).toURI().toString();
  }

  private static RoaringPositionBitmap positions(long... values) {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    for (long v : values) {
      bitmap.add(v);
    }
    return bitmap;
  }

  @Test
  public void copiesStoredBytesWithNewPropertiesAndKeepsOffsetsUsable() throws Exception {
    String source = location("dv.puffin");
    byte[] sketch = new byte[5000];
    for (int i = 0; i < sketch.length; i++) {
      sketch[i] = (byte) (i % 13);
    }
    try (PuffinWriter writer = Puffin.write(IO.newOutputFile(source)).createdBy("Floe test").set("k", "v").build()) {
      writer.add(DeletionVector.of(positions(1, 3, 1L << 33)).toBlob("file:/w/old/data/a.parquet"));
      writer.add(Blob.of("other-v1", List.of(7), 11L, 12L, sketch).withCompression(PuffinCompressionCodec.ZSTD)
          .withProperties(Map.of("ndv", "13")));
      writer.add(DeletionVector.of(positions(0)).toBlob("file:/w/old/data/b.parquet"));
    }
    PuffinReader original = Puffin.read(IO.newInputFile(source)).build();
    List<BlobMetadata> before = original.fileMetadata().blobs();

    String target = location("dv-copy.puffin");
    PuffinCopy.Result copy = PuffinCopy.copy(IO.newInputFile(source), IO.newOutputFile(target), blob -> {
      Map<String, String> properties = new LinkedHashMap<>(blob.properties());
      properties.computeIfPresent(StandardPuffinProperties.REFERENCED_DATA_FILE,
          (k, path) -> path.replace("/w/old/", "/w/new-name/"));
      return properties;
    });

    assertEquals(target, copy.location());
    assertEquals(Files.size(new File(temp.getRoot(), "dv-copy.puffin").toPath()), copy.fileSize());
    PuffinReader copied = Puffin.read(IO.newInputFile(target)).build();
    assertEquals(copy.footerSize(), copied.footerSize());
    assertEquals(Map.of("created-by", "Floe test", "k", "v"), copied.fileMetadata().properties());
    List<BlobMetadata> after = copied.fileMetadata().blobs();
    assertEquals(3, after.size());
    for (int i = 0; i < 3; i++) {
      BlobMetadata old = before.get(i);
      BlobMetadata moved = after.get(i);
      assertEquals(moved, copy.blobAt(old.offset()));
      assertEquals(old.type(), moved.type());
      assertEquals(old.inputFields(), moved.inputFields());
      assertEquals(old.snapshotId(), moved.snapshotId());
      assertEquals(old.sequenceNumber(), moved.sequenceNumber());
      assertEquals(old.compressionCodec(), moved.compressionCodec());
      assertEquals(old.length(), moved.length());
      assertArrayEquals("stored bytes are copied, not recompressed",
          original.readRange(old.offset(), (int) old.length()), copied.readRange(moved.offset(), (int) moved.length()));
      assertArrayEquals(original.readBlob(old), copied.readBlob(moved));
    }
    assertEquals("file:/w/new-name/data/a.parquet",
        after.get(0).properties().get(StandardPuffinProperties.REFERENCED_DATA_FILE));
    assertEquals("3", after.get(0).properties().get(StandardPuffinProperties.CARDINALITY));
    assertEquals(Map.of("ndv", "13"), after.get(1).properties());
    assertEquals("file:/w/new-name/data/b.parquet",
        after.get(2).properties().get(StandardPuffinProperties.REFERENCED_DATA_FILE));
    // a deletion vector read the way a manifest entry locates it: offset and length in the new file
    DeletionVector vector = DeletionVector.read(IO.newInputFile(target), after.get(0).offset(),
        after.get(0).length(), 3);
    assertEquals(positions(1, 3, 1L << 33).cardinality(), vector.cardinality());
    assertEquals(true, vector.isDeleted(1L << 33));
    assertNull(copy.blobAt(1));
  }

  @Test
  public void neverOverwritesTheTarget() throws Exception {
    String source = location("a.puffin");
    try (PuffinWriter writer = Puffin.write(IO.newOutputFile(source)).build()) {
      writer.add(DeletionVector.of(positions(2)).toBlob("file:/w/t/data/a.parquet"));
    }
    String target = location("b.puffin");
    Files.writeString(new File(temp.getRoot(), "b.puffin").toPath(), "taken");
    assertThrows(UncheckedIOException.class,
        () -> PuffinCopy.copy(IO.newInputFile(source), IO.newOutputFile(target), BlobMetadata::properties));
    assertEquals("taken", Files.readString(new File(temp.getRoot(), "b.puffin").toPath()));
  }
}
