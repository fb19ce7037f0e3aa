package io.floe.format.manifest;

import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.FloeFormatException;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.zip.Deflater;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Crafted container files must fail with a FloeFormatException naming the file, never hang or exhaust the heap. */
public class TestAvroContainerLimits {
  private static final String EMPTY_RECORD = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[]}";

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test(timeout = 20_000)
  public void hugeRecordCountInATinyBlockIsRejected() throws Exception {
    assertRejected(container("null", 1L << 40, new byte[0]), "records in 0 bytes");
  }

  @Test(timeout = 60_000)
  public void deflateBlockExpandingPastTheLimitIsRejected() throws Exception {
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    byte[] zeros = new byte[1 << 20];
    byte[] buffer = new byte[1 << 16];
    for (int i = 0; i < 260; i++) { // 260 MiB of zeros, about 260 KiB deflated
      deflater.setInput(zeros);
      while (!deflater.needsInput()) {
        compressed.write(buffer, 0, deflater.deflate(buffer));
      }
    }
    deflater.finish();
    while (!deflater.finished()) {
      compressed.write(buffer, 0, deflater.deflate(buffer));
    }
    deflater.end();
    assertRejected(container("deflate", 1, compressed.toByteArray()), "expands past");
  }

  @Test
  public void bytesLeftAfterABlocksRecordsAreRejected() throws Exception {
    assertRejected(container("null", 0, new byte[] {1, 2, 3}), "bytes left");
  }

  private void assertRejected(byte[] file, String expected) throws Exception {
    File f = temp.newFile("crafted.avro");
    Files.write(f.toPath(), file);
    String location = f.toURI().toString();
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> AvroRecords.read(ManifestFixtures.IO.newInputFile(location), "manifest"));
    assertTrue(e.getMessage(), e.getMessage().contains(location) && e.getMessage().contains(expected));
  }

  /** Magic, header {avro.schema, avro.codec}, sync, one block of {@code count} records, sync. */
  private static byte[] container(String codec, long count, byte[] block) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {'O', 'b', 'j', 1});
    writeLong(out, 2);
    writeBytes(out, "avro.schema".getBytes(StandardCharsets.UTF_8));
    writeBytes(out, EMPTY_RECORD.getBytes(StandardCharsets.UTF_8));
    writeBytes(out, "avro.codec".getBytes(StandardCharsets.UTF_8));
    writeBytes(out, codec.getBytes(StandardCharsets.UTF_8));
    writeLong(out, 0);
    byte[] sync = new byte[16];
    out.writeBytes(sync);
    writeLong(out, count);
    writeBytes(out, block);
    out.writeBytes(sync);
    return out.toByteArray();
  }

  private static void writeBytes(ByteArrayOutputStream out, byte[] bytes) {
    writeLong(out, bytes.length);
    out.writeBytes(bytes);
  }

  private static void writeLong(ByteArrayOutputStream out, long value) {
    long n = (value << 1) ^ (value >> 63);
    while ((n & ~0x7FL) != 0) {
      out.write((int) ((n & 0x7F) | 0x80));
      n >>>= 7;
    }
    out.write((int) n);
  }
}
