package io.floe.format.puffin;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import io.floe.format.deletes.DeletionVector;
import io.floe.format.io.LocalFileIO;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.UpdateSketch;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Golden Puffin files shared with Python (python-tests/test_puffin_golden_files.py reads them with
 * floe.inspect and pyiceberg): the writer must reproduce them byte for byte. To regenerate after
 * an intended change, run with {@code -Dfloe.test.regenerate-golden=true} (from the format project
 * directory) and review the diff.
 */
public class TestPuffinGoldenFiles {
  static final Path GOLDEN = Paths.get("src/test/resources/puffin");
  private static final LocalFileIO IO = new LocalFileIO();
  static final String DATA_A = "file:/warehouse/db/t/data/00000-0-a.parquet";
  static final String DATA_B = "file:///warehouse/db/t/data/p=1/00001-0-b.parquet";

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /** Two deletion vectors, as a v3 writer stores them: what pyiceberg and Java read. */
  private static void writeDeletionVectors(PuffinWriter writer) {
    DeletionVector a = DeletionVector.empty();
    for (long p : new long[] {0, 1, 2, (1L << 32) + 5}) {
      a.delete(p);
    }
    writer.add(a.toBlob(DATA_A));
    DeletionVector b = DeletionVector.empty();
    b.positions().addRange(100, 5100); // one run container
    for (long p = 6000; p < 7000; p += 3) {
      b.delete(p);
    }
    b.delete((2L << 32) + 1); // key 1 is an empty bitmap
    writer.add(b.toBlob(DATA_B));
  }

  /** Blobs with each codec: a theta sketch (zstd), text (lz4) and raw bytes (none). */
  private static void writeCodecs(PuffinWriter writer) {
    UpdateSketch sketch = UpdateSketch.builder().build();
    for (long v = 1; v <= 1000; v++) {
      sketch.update(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    }
    CompactSketch compact = sketch.compact();
    writer.add(Blob.of(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1, List.of(1), 5L, 3L, compact.toByteArray())
        .withProperties(Map.of(StandardPuffinProperties.NDV, "1000")));
    writer.add(Blob.of("floe-test-text", List.of(2, 3), 5L, 3L, text())
        .withCompression(PuffinCompressionCodec.LZ4));
    writer.add(Blob.of("floe-test-bytes", List.of(), 5L, 3L, new byte[] {0, 1, 2, (byte) 0xFF})
        .withCompression(PuffinCompressionCodec.NONE));
  }

  static byte[] text() {
    return "Floe golden Puffin blob. ".repeat(40).getBytes(StandardCharsets.UTF_8);
  }

  private interface Content {
    void write(PuffinWriter writer);
  }

  private void check(String name, Content content, boolean compressFooter) throws Exception {
    File written = new File(temp.getRoot(), name);
    Puffin.WriteBuilder builder = Puffin.write(IO.newOutputFile(written.toURI().toString()))
        .createdBy("Floe golden-file test").compress(PuffinCompressionCodec.ZSTD);
    if (compressFooter) {
      builder.compressFooter();
    }
    try (PuffinWriter writer = builder.build()) {
      content.write(writer);
    }
    byte[] bytes = Files.readAllBytes(written.toPath());
    Path golden = GOLDEN.resolve(name);
    if (Boolean.getBoolean("floe.test.regenerate-golden")) {
      Files.createDirectories(GOLDEN);
      Files.write(golden, bytes);
    }
    assertArrayEquals("writer output differs from " + golden, Files.readAllBytes(golden), bytes);

    // and the golden file reads back
    PuffinReader reader = Puffin.read(IO.newInputFile(golden.toUri().toString())).build();
    assertEquals("Floe golden-file test", reader.fileMetadata().properties().get("created-by"));
  }

  @Test
  public void deletionVectors() throws Exception {
    check("floe-deletion-vectors.puffin", TestPuffinGoldenFiles::writeDeletionVectors, false);
    PuffinReader reader = Puffin.read(IO.newInputFile(GOLDEN.resolve("floe-deletion-vectors.puffin").toUri().toString()))
        .build();
    BlobMetadata b = reader.fileMetadata().blobs().get(1);
    assertEquals(DATA_B, b.properties().get("referenced-data-file"));
    DeletionVector dv = DeletionVector.deserialize(reader.readBlob(b), 5000 + 334 + 1, "golden");
    assertEquals(true, dv.isDeleted((2L << 32) + 1));
  }

  @Test
  public void everyCodec() throws Exception {
    check("floe-codecs.puffin", TestPuffinGoldenFiles::writeCodecs, false);
    PuffinReader reader = Puffin.read(IO.newInputFile(GOLDEN.resolve("floe-codecs.puffin").toUri().toString())).build();
    List<BlobMetadata> blobs = reader.fileMetadata().blobs();
    assertEquals("zstd", blobs.get(0).compressionCodec());
    assertEquals(1000.0, CompactSketch.wrap(
        org.apache.datasketches.memory.Memory.wrap(reader.readBlob(blobs.get(0)))).getEstimate(), 0.0);
    assertArrayEquals(text(), reader.readBlob(blobs.get(1)));
  }

  @Test
  public void compressedFooter() throws Exception {
    check("floe-compressed-footer.puffin", TestPuffinGoldenFiles::writeCodecs, true);
  }
}
