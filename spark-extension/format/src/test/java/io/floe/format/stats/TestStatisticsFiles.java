package io.floe.format.stats;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.StatisticsBlobMetadata;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinCompressionCodec;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.puffin.StandardBlobTypes;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.theta.Sketch;
import org.apache.datasketches.theta.Union;
import org.apache.datasketches.theta.UpdateSketch;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Statistics Puffin files (docs/format.md, 'Table statistics'): layout, codecs, estimates, reading back. */
public class TestStatisticsFiles {
  private static final LocalFileIO IO = new LocalFileIO();
  private static final Snapshot SNAPSHOT = Snapshot.builder().snapshotId(1234L).sequenceNumber(5L)
      .timestampMillis(1L).manifestListLocation("file:/tmp/x.avro").operation("append").build();

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private String location(String name) {
    return new File(temp.getRoot(), name).toURI().toString();
  }

  private static UpdateSketch longs(long from, long to) {
    UpdateSketch sketch = ThetaSketches.newSketch();
    for (long v = from; v < to; v++) {
      sketch.update(v);
    }
    return sketch;
  }

  @Test
  public void writesOneThetaBlobPerColumnWithEachCodec() throws Exception {
    for (PuffinCompressionCodec codec : PuffinCompressionCodec.values()) {
      String location = location("stats-" + codec + ".stats");
      Map<Integer, Sketch> sketches = new LinkedHashMap<>();
      sketches.put(1, longs(0, 50_000));
      sketches.put(3, longs(0, 10));
      StatisticsFile file = StatisticsFileWriter.write(IO, location, SNAPSHOT, sketches, codec);

      byte[] bytes = Files.readAllBytes(new File(temp.getRoot(), "stats-" + codec + ".stats").toPath());
      assertEquals(bytes.length, file.fileSizeInBytes());
      assertEquals(1234L, file.snapshotId());
      assertEquals(location, file.path());
      assertEquals("footer flags: uncompressed", 0, bytes[bytes.length - 8]);
      int payload = ByteBuffer.wrap(bytes, bytes.length - 12, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
      assertEquals(payload + 16, file.fileFooterSizeInBytes());

      List<StatisticsBlobMetadata> blobs = file.blobMetadata();
      assertEquals(2, blobs.size());
      assertEquals(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1, blobs.get(0).type());
      assertEquals(List.of(1), blobs.get(0).fields());
      assertEquals(List.of(3), blobs.get(1).fields());
      assertEquals(1234L, blobs.get(0).sourceSnapshotId());
      assertEquals(5L, blobs.get(0).sourceSnapshotSequenceNumber());
      assertEquals("10", blobs.get(1).properties().get("ndv"));
      long ndv = Long.parseLong(blobs.get(0).properties().get("ndv"));
      assertTrue("ndv " + ndv, Math.abs(ndv - 50_000) <= 50_000 * 0.0313);

      PuffinReader reader = Puffin.read(IO.newInputFile(location)).withFileSize(bytes.length)
          .withFooterSize(file.fileFooterSizeInBytes()).build();
      assertEquals(StatisticsFileWriter.CREATED_BY, reader.fileMetadata().properties().get("created-by"));
      io.floe.format.puffin.BlobMetadata stored = reader.fileMetadata().blobs().get(0);
      assertEquals(codec.codecName(), stored.compressionCodec());
      assertEquals(Map.of("ndv", Long.toString(ndv)), stored.properties());
      assertArrayEquals(ThetaSketches.toBlob(sketches.get(1)), reader.readBlob(stored));

      Map<Integer, Sketch> back = StatisticsFileReader.thetaSketches(IO, file);
      assertEquals(List.of(1, 3), List.copyOf(back.keySet()));
      assertEquals(ndv, (long) back.get(1).getEstimate());
      assertEquals(sketches.get(1).compact().getEstimate(), back.get(1).getEstimate(), 0.0);
      assertEquals(10.0, back.get(3).getEstimate(), 0.0);
    }
  }

  @Test
  public void blobsAreCompactSketchesWithTheDefaultSeed() {
    byte[] blob = ThetaSketches.toBlob(longs(0, 100));
    Sketch sketch = ThetaSketches.fromBlob(blob);
    assertTrue(sketch.isCompact());
    assertTrue(sketch.isOrdered());
    assertEquals("seed hash of seed 9001, bytes 6-7 of the preamble", 0x93CC, (blob[6] & 0xFF) | (blob[7] & 0xFF) << 8);
    assertEquals(100.0, sketch.getEstimate(), 0.0);
  }

  @Test
  public void estimatesAndUnionsStayWithinTwoStandardErrors() {
    int n = 300_000;
    UpdateSketch all = longs(0, n);
    Union union = ThetaSketches.newUnion();
    union.union(ThetaSketches.fromBlob(ThetaSketches.toBlob(longs(0, 200_000))));
    union.union(ThetaSketches.fromBlob(ThetaSketches.toBlob(longs(150_000, n)))); // overlaps
    for (Sketch sketch : List.of(all, union.getResult())) {
      double error = Math.abs(sketch.getEstimate() - n) / n;
      assertTrue("relative error " + error, error <= 0.0313);
    }
  }

  @Test
  public void readsACorruptBlobAsAnErrorNamingTheFileAndOffset() throws Exception {
    String location = location("corrupt.stats");
    StatisticsFile file = StatisticsFileWriter.write(IO, location, SNAPSHOT, Map.of(7, longs(0, 100)),
        PuffinCompressionCodec.NONE);
    File onDisk = new File(temp.getRoot(), "corrupt.stats");
    byte[] bytes = Files.readAllBytes(onDisk.toPath());
    for (int i = 4; i < 12; i++) {
      bytes[i] = (byte) 0x7F; // the sketch preamble, right after the leading magic
    }
    Files.write(onDisk.toPath(), bytes);
    try {
      StatisticsFileReader.thetaSketches(IO, file);
      fail("expected an error");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(location) && e.getMessage().contains("offset 4"));
    }
  }

  @Test
  public void readsTheCodecTableProperty() {
    assertEquals(PuffinCompressionCodec.ZSTD, StatisticsFileWriter.codecOf(null, "db.t"));
    assertEquals(PuffinCompressionCodec.LZ4, StatisticsFileWriter.codecOf("LZ4", "db.t"));
    assertEquals(PuffinCompressionCodec.NONE, StatisticsFileWriter.codecOf("none", "db.t"));
    try {
      StatisticsFileWriter.codecOf("gzip", "db.t");
      fail("expected an error");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("db.t") && e.getMessage().contains("gzip"));
    }
  }
}
