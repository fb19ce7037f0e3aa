package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.IO;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeFormatException;
import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Corrupt manifests fail the same way whichever path decodes their entries: a
 * {@link FloeFormatException} naming the file, never an OutOfMemoryError, an endless loop, another
 * exception or entries the other path would not build.
 */
public class TestDirectEntryReaderCorruption {
  /** Byte values written over each byte of the blocks: zero, small, varint continuation, all ones. */
  private static final int[] OVERWRITES = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff};

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test(timeout = 300_000)
  public void everyOverwrittenByteOfAnUncompressedManifestFailsOrReadsTheSameOnBothPaths() throws Exception {
    // pyiceberg writes this one uncompressed, one block per entry: every byte of every value is reachable
    byte[] original = fixture("pyiceberg-v2-deletes-transforms");
    int read = 0;
    int rejected = 0;
    for (int p = blocksStart(original); p < original.length; p++) {
      for (int value : OVERWRITES) {
        if ((original[p] & 0xff) == value) {
          continue;
        }
        byte[] bytes = original.clone();
        bytes[p] = (byte) value;
        if (sameOutcome(bytes, "byte " + p + " = " + value)) {
          read++;
        } else {
          rejected++;
        }
      }
    }
    assertTrue("some overwrites are rejected (" + rejected + "), some read (" + read + ")", rejected > 0 && read > 0);
  }

  @Test(timeout = 300_000)
  public void everyOverwrittenByteOfADeflatedManifestFailsOrReadsTheSameOnBothPaths() throws Exception {
    byte[] original = fixture("iceberg-v3-deletes-transforms");
    for (int p = blocksStart(original); p < original.length; p += 3) {
      byte[] bytes = original.clone();
      bytes[p] = (byte) ~bytes[p];
      sameOutcome(bytes, "byte " + p + " inverted");
    }
  }

  @Test(timeout = 120_000)
  public void everyTruncationFailsOnBothPathsUnlessItEndsABlock() throws Exception {
    // pyiceberg writes a block per entry: cut after the first block, the file is a valid one-entry manifest
    // (as the header alone is an empty one)
    byte[] original = fixture("pyiceberg-v2-deletes-transforms");
    int read = 0;
    for (int length = blocksStart(original) + 1; length < original.length; length++) {
      read += sameOutcome(Arrays.copyOf(original, length), "truncated to " + length) ? 1 : 0;
    }
    assertEquals(1, read);
  }

  @Test
  public void equalityIdsWrittenAsLongsAreCheckedToFitAnIntOnBothPaths() throws Exception {
    // pyiceberg writes equality_ids as an array of longs; the direct path reads them (no generic fallback)
    byte[] original = fixture("pyiceberg-v2-deletes-transforms");
    assertNotNull(AvroContainer.decode(original).direct());
    File file = write(original, 5_000_000_000L);
    for (ManifestReader.Decoding decoding : ManifestReader.Decoding.values()) {
      FloeFormatException e = assertThrows(FloeFormatException.class, () -> read(file, decoding));
      assertEquals("Invalid manifest " + file.toURI() + ": field equality_ids is out of int range: 5000000000",
          e.getMessage());
    }
    File fits = write(original, 7L);
    assertEquals(read(fits, ManifestReader.Decoding.GENERIC).toString(),
        read(fits, ManifestReader.Decoding.DIRECT_WHEN_POSSIBLE).toString());
    assertTrue(read(fits, ManifestReader.Decoding.DIRECT_WHEN_POSSIBLE).toString().contains("eq=[1, 7]"));
  }

  /** The fixture with the second equality id of its equality delete file replaced by {@code id}. */
  private File write(byte[] original, long id) throws Exception {
    AvroContainer container = AvroContainer.decode(original);
    File file = temp.newFile("eq-" + id + ".avro");
    try (DataFileWriter<GenericRecord> out = new DataFileWriter<>(new GenericDatumWriter<>(container.schema))) {
      container.metadata.forEach(out::setMeta);
      out.create(container.schema, file);
      for (GenericRecord entry : container.records()) {
        GenericRecord dataFile = (GenericRecord) entry.get("data_file");
        if (dataFile.get("equality_ids") != null) {
          dataFile.put("equality_ids", new GenericData.Array<>(dataFile.getSchema().getField("equality_ids").schema()
              .getTypes().get(1), List.of(1L, id)));
        }
        out.append(entry);
      }
    }
    return file;
  }

  /**
   * Reads {@code bytes} on both paths: both fail with a FloeFormatException naming the file, or both
   * build the same entries (returns whether they did).
   */
  private boolean sameOutcome(byte[] bytes, String what) throws Exception {
    File file = temp.newFile();
    Files.write(file.toPath(), bytes);
    String direct = outcome(file, ManifestReader.Decoding.DIRECT_WHEN_POSSIBLE, what);
    String generic = outcome(file, ManifestReader.Decoding.GENERIC, what);
    assertEquals(what, generic == null, direct == null);
    if (direct != null) {
      assertEquals(what, generic, direct);
    }
    file.delete();
    return direct != null;
  }

  /** The entries read, or null when the read failed as it should. */
  private static String outcome(File file, ManifestReader.Decoding decoding, String what) {
    try {
      return read(file, decoding).toString();
    } catch (FloeFormatException e) {
      assertTrue(what + ": " + e.getMessage(), e.getMessage().contains(file.toURI().toString()));
      return null;
    } catch (RuntimeException | Error e) {
      throw new AssertionError(what + ", " + decoding + ": " + e, e);
    }
  }

  private static List<String> read(File file, ManifestReader.Decoding decoding) {
    String location = file.toURI().toString();
    ManifestFile m = ManifestFile.builder(location).withLength(file.length()).withPartitionSpecId(1)
        .withContent(ManifestContent.DELETES).withSequenceNumber(5).withMinSequenceNumber(1).withSnapshotId(100L)
        .build();
    List<String> out = new ArrayList<>();
    for (ManifestEntry<?> e : ManifestReader.read(IO.newInputFile(location), m, Map.of(), decoding)) {
      ContentFile f = e.file();
      StringBuilder s = new StringBuilder().append(e.status()).append(' ').append(e.snapshotId()).append(' ')
          .append(e.dataSequenceNumber()).append(' ').append(e.fileSequenceNumber()).append(' ').append(f.content())
          .append(' ').append(f.path()).append(' ').append(f.format()).append(' ').append(f.partition()).append(' ')
          .append(f.recordCount()).append(' ').append(f.fileSizeInBytes()).append(' ').append(f.columnSizes())
          .append(f.valueCounts()).append(f.nullValueCounts()).append(f.nanValueCounts()).append(' ')
          .append(bounds(f.lowerBounds())).append(bounds(f.upperBounds())).append(" key=")
          .append(f.keyMetadata() == null ? null : Arrays.toString(AvroRecords.bytes(f.keyMetadata())))
          .append(' ').append(f.splitOffsets()).append(' ').append(f.sortOrderId());
      if (f instanceof DeleteFile d) {
        s.append(" eq=").append(d.equalityFieldIds()).append(' ').append(d.referencedDataFile());
      }
      out.add(s.toString());
    }
    return out;
  }

  private static String bounds(Map<Integer, java.nio.ByteBuffer> bounds) {
    StringBuilder s = new StringBuilder("{");
    bounds.forEach((k, v) -> s.append(k).append('=').append(Arrays.toString(AvroRecords.bytes(v))).append(','));
    return s.append('}').toString();
  }

  private byte[] fixture(String name) throws Exception {
    try (InputStream in = getClass().getResourceAsStream("/manifests/" + name + ".avro")) {
      assertNotNull(name, in);
      return in.readAllBytes();
    }
  }

  /** Where the first block starts: right after the header's sync marker (the file's last 16 bytes). */
  private static int blocksStart(byte[] file) {
    byte[] sync = Arrays.copyOfRange(file, file.length - 16, file.length);
    for (int p = 4; p + 16 <= file.length; p++) {
      if (Arrays.equals(Arrays.copyOfRange(file, p, p + 16), sync)) {
        return p + 16;
      }
    }
    fail("no sync marker");
    return -1;
  }
}
