package io.floe.format.puffin;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.FloeFormatException;
import io.floe.format.io.LocalFileIO;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Puffin files (docs/format.md, 'Puffin files'): round trips with each codec, footer arithmetic, corruption. */
public class TestPuffin {
  private static final LocalFileIO IO = new LocalFileIO();

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private String location(String name) {
    return new File(temp.getRoot(), name).toURI().toString();
  }

  private static byte[] payload(int size) {
    byte[] data = new byte[size];
    for (int i = 0; i < size; i++) {
      data[i] = (byte) (i % 7 == 0 ? i : 'a' + i % 3); // compressible
    }
    return data;
  }

  private static Blob blob(String type, int size) {
    return Blob.of(type, List.of(1, 2), 42L, 7L, payload(size)).withProperties(Map.of("k", "v"));
  }

  @Test
  public void roundTripsBlobsWithEachCodec() throws Exception {
    for (PuffinCompressionCodec codec : PuffinCompressionCodec.values()) {
      String location = location("each-" + codec + ".puffin");
      PuffinWriter writer = Puffin.write(IO.newOutputFile(location)).createdBy("Floe test").compress(codec).build();
      BlobMetadata big = writer.add(blob("big", 100_000));
      BlobMetadata empty = writer.add(blob("empty", 0));
      BlobMetadata plain = writer.add(blob("plain", 10).withCompression(PuffinCompressionCodec.NONE));
      writer.finish();
      assertEquals(4, big.offset());
      assertEquals(codec.codecName(), big.compressionCodec());
      assertNull(plain.compressionCodec());
      if (codec != PuffinCompressionCodec.NONE) {
        assertTrue(codec + " compresses", big.length() < 100_000 / 2);
      }
      assertEquals(Files.size(new File(new java.net.URI(location)).toPath()), writer.fileSize());

      PuffinReader reader = Puffin.read(IO.newInputFile(location)).build();
      FileMetadata footer = reader.fileMetadata();
      assertEquals(List.of(big, empty, plain), footer.blobs());
      assertEquals(Map.of("created-by", "Floe test"), footer.properties());
      assertEquals(writer.footerSize(), reader.footerSize());
      assertArrayEquals(payload(100_000), reader.readBlob(footer.blobs().get(0)));
      assertArrayEquals(new byte[0], reader.readBlob(footer.blobs().get(1)));
      assertArrayEquals(payload(10), reader.readBlob(footer.blobs().get(2)));
      BlobMetadata read = footer.blobs().get(0);
      assertEquals("big", read.type());
      assertEquals(List.of(1, 2), read.inputFields());
      assertEquals(42L, read.snapshotId());
      assertEquals(7L, read.sequenceNumber());
      assertEquals(Map.of("k", "v"), read.properties());
    }
  }

  @Test
  public void framesCarryTheirContentSize() throws Exception {
    byte[] data = payload(1000);
    byte[] lz4 = PuffinCompressionCodec.LZ4.compress(data);
    assertEquals(0x184D2204, ByteBuffer.wrap(lz4).order(ByteOrder.LITTLE_ENDIAN).getInt()); // LZ4 frame magic
    assertEquals("content-size flag", 0x08, lz4[4] & 0x08);
    assertEquals(1000, ByteBuffer.wrap(lz4, 6, 8).order(ByteOrder.LITTLE_ENDIAN).getLong());
    byte[] zstd = PuffinCompressionCodec.ZSTD.compress(data);
    assertEquals(0xFD2FB528, ByteBuffer.wrap(zstd).order(ByteOrder.LITTLE_ENDIAN).getInt()); // zstd frame magic
    assertEquals(1000, com.github.luben.zstd.Zstd.getFrameContentSize(zstd));
  }

  @Test
  public void writesTheFooterUncompressedByDefault() throws Exception {
    String location = location("plain-footer.puffin");
    try (PuffinWriter writer = Puffin.write(IO.newOutputFile(location)).createdBy("x").build()) {
      writer.add(blob("a", 3));
    }
    byte[] file = Files.readAllBytes(new File(new java.net.URI(location)).toPath());
    String expectedJson = "{\"blobs\":[{\"type\":\"a\",\"fields\":[1,2],\"snapshot-id\":42,\"sequence-number\":7,"
        + "\"offset\":4,\"length\":3,\"properties\":{\"k\":\"v\"}}],\"properties\":{\"created-by\":\"x\"}}";
    byte[] json = expectedJson.getBytes(StandardCharsets.UTF_8);
    assertEquals(4 + 3 + 4 + json.length + 12, file.length);
    assertEquals("PFA1", new String(file, 0, 4, StandardCharsets.US_ASCII));
    assertEquals("PFA1", new String(file, 7, 4, StandardCharsets.US_ASCII));
    assertEquals(expectedJson, new String(file, 11, json.length, StandardCharsets.UTF_8));
    ByteBuffer tail = ByteBuffer.wrap(file, file.length - 12, 12).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(json.length, tail.getInt());
    assertEquals(0, tail.getInt()); // flags
    assertEquals("PFA1", new String(file, file.length - 4, 4, StandardCharsets.US_ASCII));
  }

  @Test
  public void readsACompressedFooter() {
    String location = location("lz4-footer.puffin");
    PuffinWriter writer = Puffin.write(IO.newOutputFile(location)).createdBy("x").compressFooter().build();
    BlobMetadata a = writer.add(blob("a", 5000).withCompression(PuffinCompressionCodec.ZSTD));
    writer.finish();
    PuffinReader reader = Puffin.read(IO.newInputFile(location)).withFooterSize(writer.footerSize()).build();
    assertEquals(List.of(a), reader.fileMetadata().blobs());
    assertArrayEquals(payload(5000), reader.readBlob(a));
  }

  @Test
  public void readsALargeFooterBeyondTheTailRead() {
    String location = location("many-blobs.puffin");
    PuffinWriter writer = Puffin.write(IO.newOutputFile(location)).createdBy("x").build();
    for (int i = 0; i < 500; i++) {
      writer.add(blob("b" + i, 1).withProperties(Map.of("referenced-data-file", "file:/data/" + i + ".parquet")));
    }
    writer.finish();
    assertTrue(writer.footerSize() > 16 * 1024);
    PuffinReader reader = Puffin.read(IO.newInputFile(location)).build();
    assertEquals(writer.writtenBlobsMetadata(), reader.fileMetadata().blobs());
  }

  private String writeSmall(String name) {
    String location = location(name);
    try (PuffinWriter writer = Puffin.write(IO.newOutputFile(location)).createdBy("x").build()) {
      writer.add(blob("a", 3));
    }
    return location;
  }

  private String corrupt(String name, java.util.function.Consumer<byte[]> change) throws Exception {
    String location = writeSmall(name);
    java.nio.file.Path path = new File(new java.net.URI(location)).toPath();
    byte[] bytes = Files.readAllBytes(path);
    change.accept(bytes);
    Files.write(path, bytes);
    return location;
  }

  private FloeFormatException readFails(String location) {
    return assertThrows(FloeFormatException.class,
        () -> Puffin.read(IO.newInputFile(location)).build().fileMetadata());
  }

  @Test
  public void rejectsBadMagicAtEitherEnd() throws Exception {
    String head = corrupt("head.puffin", b -> b[0] = 'X');
    assertEquals("Invalid Puffin file " + head + ": at offset 0, expected magic 50 46 41 31, found 58 46 41 31",
        readFails(head).getMessage());
    String tail = corrupt("tail.puffin", b -> b[b.length - 1] = 'X');
    assertTrue(readFails(tail).getMessage().contains("expected magic 50 46 41 31, found 50 46 41 58"));
    String footer = corrupt("footer.puffin", b -> b[7] = 'X'); // the footer's opening magic
    assertTrue(readFails(footer).getMessage().contains("at offset 7, expected magic"));
  }

  @Test
  public void rejectsABadPayloadLength() throws Exception {
    String tooLong = corrupt("long.puffin", b -> b[b.length - 9] = (byte) 0x7F);
    FloeFormatException e = readFails(tooLong);
    assertTrue(e.getMessage(), e.getMessage().contains("expected a footer payload length from 0 to"));
    String shorter = corrupt("short.puffin", b -> b[b.length - 12] -= 1);
    assertTrue(readFails(shorter).getMessage().contains("expected magic"));
    String location = writeSmall("size.puffin");
    FloeFormatException listed = assertThrows(FloeFormatException.class,
        () -> Puffin.read(IO.newInputFile(location)).withFooterSize(10).build().fileMetadata());
    assertTrue(listed.getMessage(), listed.getMessage().contains("expected footer size 10 (as listed for the file)"));
  }

  @Test
  public void rejectsUnknownFlags() throws Exception {
    String location = corrupt("flags.puffin", b -> b[b.length - 6] = 1);
    assertTrue(readFails(location).getMessage().contains("expected flag byte 2 with no unknown bits set"));
    String bit = corrupt("bit.puffin", b -> b[b.length - 8] = 2);
    assertTrue(readFails(bit).getMessage().contains("found 0x2"));
  }

  @Test
  public void rejectsTruncatedFilesAndBlobsOutsideTheFile() throws Exception {
    String location = writeSmall("whole.puffin");
    java.nio.file.Path path = new File(new java.net.URI(location)).toPath();
    byte[] bytes = Files.readAllBytes(path);
    Files.write(path, Arrays.copyOf(bytes, 10));
    assertTrue(readFails(location).getMessage().contains("expected a file of at least 20 bytes, found 10 bytes"));
    Files.write(path, Arrays.copyOf(bytes, bytes.length - 1));
    readFails(location);

    String json = "{\"blobs\":[{\"type\":\"a\",\"fields\":[],\"snapshot-id\":1,\"sequence-number\":1,"
        + "\"offset\":4,\"length\":300}]}";
    String outside = location("outside.puffin");
    writeRaw(outside, new byte[3], json);
    FloeFormatException e = readFails(outside);
    assertTrue(e.getMessage(), e.getMessage().contains("expected blob a within bytes [4, 7) before the footer,"
        + " found offset 4, length 300"));
  }

  @Test
  public void namesMissingFooterFields() throws Exception {
    String location = location("missing.puffin");
    writeRaw(location, new byte[0], "{\"blobs\":[{\"type\":\"a\",\"fields\":[],\"snapshot-id\":1,\"offset\":4,\"length\":0}]}");
    FloeFormatException e = readFails(location);
    assertEquals("Invalid Puffin file " + location + ": footer payload at offset 8: Cannot parse missing field:"
        + " sequence-number", e.getMessage());
    String codec = location("codec.puffin");
    writeRaw(codec, new byte[2], "{\"blobs\":[{\"type\":\"a\",\"fields\":[],\"snapshot-id\":1,\"sequence-number\":1,"
        + "\"offset\":4,\"length\":2,\"compression-codec\":\"snappy\"}]}");
    PuffinReader reader = Puffin.read(IO.newInputFile(codec)).build();
    BlobMetadata blob = reader.fileMetadata().blobs().get(0);
    FloeFormatException unsupported = assertThrows(FloeFormatException.class, () -> reader.readBlob(blob));
    assertTrue(unsupported.getMessage(), unsupported.getMessage().contains("expected compression-codec lz4 or zstd,"
        + " found snappy"));
    String broken = location("broken.puffin");
    writeRaw(broken, new byte[] {1, 2, 3}, "{\"blobs\":[{\"type\":\"a\",\"fields\":[],\"snapshot-id\":1,"
        + "\"sequence-number\":1,\"offset\":4,\"length\":3,\"compression-codec\":\"zstd\"}]}");
    PuffinReader brokenReader = Puffin.read(IO.newInputFile(broken)).build();
    FloeFormatException frame = assertThrows(FloeFormatException.class,
        () -> brokenReader.readBlob(brokenReader.fileMetadata().blobs().get(0)));
    assertTrue(frame.getMessage(), frame.getMessage().contains("at offset 4, expected a zstd frame of 3 bytes"));
  }

  /** A Puffin file from raw blob bytes and a hand-written footer payload. */
  private static void writeRaw(String location, byte[] blobs, String footerJson) throws Exception {
    byte[] json = footerJson.getBytes(StandardCharsets.UTF_8);
    ByteBuffer file = ByteBuffer.allocate(4 + blobs.length + 4 + json.length + 12).order(ByteOrder.LITTLE_ENDIAN);
    file.put(PuffinFormat.MAGIC).put(blobs).put(PuffinFormat.MAGIC).put(json);
    file.put(PuffinFormat.footerStruct(json.length, false));
    Files.write(new File(new java.net.URI(location)).toPath(), file.array());
  }
}
