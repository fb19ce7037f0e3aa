package io.floe.format.deletes;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.FloeFormatException;
import io.floe.format.io.LocalFileIO;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinWriter;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.zip.CRC32;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The deletion-vector-v1 blob layout (docs/format.md, 'Deletion vectors'): bytes, round trips, corruption. */
public class TestDeletionVector {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /**
   * Positions {0, 1, 2, 2^32 + 5}, built by hand from the spec text: two bitmaps (keys 0 and 1),
   * each a 32-bit Roaring bitmap without run containers (cookie 12346, then the offset header).
   * {0, 1, 2} stays an array container: a run container (6 bytes) would not be smaller than the
   * array (6 bytes), and run-length encoding only converts when smaller, in Java as in CRoaring
   * (pyroaring's BitMap64 serializes this vector to the same bytes). CRC-32 computed with zlib.
   */
  private static final byte[] FOUR_POSITIONS = bytes(
      0x00, 0x00, 0x00, 0x3C,                         // L = 60 (big-endian) = 4 + 56
      0xD1, 0xD3, 0x39, 0x64,                         // magic
      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 2 bitmaps (uint64 LE)
      0x00, 0x00, 0x00, 0x00,                         // key 0
      0x3A, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, //   cookie 12346, 1 container
      0x00, 0x00, 0x02, 0x00,                         //   container key 0, cardinality - 1 = 2
      0x10, 0x00, 0x00, 0x00,                         //   offset of container data: 16
      0x00, 0x00, 0x01, 0x00, 0x02, 0x00,             //   array: 0, 1, 2
      0x01, 0x00, 0x00, 0x00,                         // key 1
      0x3A, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, //   cookie 12346, 1 container
      0x00, 0x00, 0x00, 0x00,                         //   container key 0, cardinality - 1 = 0
      0x10, 0x00, 0x00, 0x00,                         //   offset of container data: 16
      0x05, 0x00,                                     //   array: 5
      0x2E, 0x22, 0xDA, 0xE0);                        // CRC-32 (big-endian) of bytes [4, 64)

  /**
   * Positions {0..9, 2^32 + 5}: the run 0..9 becomes a run container (6 bytes instead of 20), so
   * key 0 uses cookie 12347 with the container count in its high 16 bits, a run-flag byte, and
   * no offset header (fewer than 4 containers).
   */
  private static final byte[] RUN_AND_ARRAY = bytes(
      0x00, 0x00, 0x00, 0x35,                         // L = 53 = 4 + 49
      0xD1, 0xD3, 0x39, 0x64,                         // magic
      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 2 bitmaps
      0x00, 0x00, 0x00, 0x00,                         // key 0
      0x3B, 0x30, 0x00, 0x00,                         //   cookie 12347 | (1 container - 1) << 16
      0x01,                                           //   run flags: container 0 is a run container
      0x00, 0x00, 0x09, 0x00,                         //   container key 0, cardinality - 1 = 9
      0x01, 0x00, 0x00, 0x00, 0x09, 0x00,             //   1 run: start 0, length - 1 = 9
      0x01, 0x00, 0x00, 0x00,                         // key 1
      0x3A, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, //   cookie 12346, 1 container
      0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, //   key 0, cardinality - 1 = 0, offset 16
      0x05, 0x00,                                     //   array: 5
      0xB8, 0xEB, 0x0B, 0x76);                        // CRC-32 of bytes [4, 57)

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  private static DeletionVector of(long... positions) {
    DeletionVector dv = DeletionVector.empty();
    for (long p : positions) {
      dv.delete(p);
    }
    return dv;
  }

  @Test
  public void serializesTheSpecLayoutByteForByte() {
    assertArrayEquals(FOUR_POSITIONS, of(0, 1, 2, (1L << 32) + 5).serialize());
    assertArrayEquals(FOUR_POSITIONS, of((1L << 32) + 5, 2, 0, 1, 1).serialize()); // order, duplicates
    assertArrayEquals(RUN_AND_ARRAY, of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, (1L << 32) + 5).serialize());
    DeletionVector runs = DeletionVector.deserialize(RUN_AND_ARRAY, 11, "run vector");
    assertTrue(runs.isDeleted(9));
    assertFalse(runs.isDeleted(10));
  }

  @Test
  public void deserializesTheSpecLayout() {
    DeletionVector dv = DeletionVector.deserialize(FOUR_POSITIONS, 4, "test vector");
    assertEquals(4, dv.cardinality());
    for (long p : new long[] {0, 1, 2, (1L << 32) + 5}) {
      assertTrue(p + " deleted", dv.isDeleted(p));
    }
    for (long p : new long[] {3, 4, 5, 1L << 32, (1L << 32) + 4, (1L << 32) + 6, 2L << 32, -1}) {
      assertFalse(p + " not deleted", dv.isDeleted(p));
    }
  }

  @Test
  public void writesEveryKeyUpToTheLargestLikeJava() {
    byte[] blob = of(7, (2L << 32) + 1).serialize();
    ByteBuffer vector = ByteBuffer.wrap(blob, 8, blob.length - 12).slice().order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(3, vector.getLong()); // keys 0, 1 (empty) and 2
    assertEquals(0, vector.getInt());
    vector.position(vector.position() + 4 + 4 + 4 + 4 + 2); // {7}: cookie, count, header, offset, value
    assertEquals(1, vector.getInt());
    assertEquals(12346, vector.getInt()); // an empty bitmap: no-run cookie, 0 containers
    assertEquals(0, vector.getInt());
    assertEquals(2, vector.getInt());
    DeletionVector back = DeletionVector.deserialize(blob, 2, "test vector");
    assertEquals(of(7, (2L << 32) + 1).positions(), back.positions());
  }

  @Test
  public void readsSparseKeysThatOtherWritersMayWrite() {
    // keys 0 and 3 only, no empty bitmaps for 1 and 2
    ByteBuffer vector = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
    vector.putLong(2);
    vector.putInt(0);
    org.roaringbitmap.RoaringBitmap.bitmapOf(9).serialize(vector);
    vector.putInt(3);
    org.roaringbitmap.RoaringBitmap.bitmapOf(4).serialize(vector);
    DeletionVector dv = DeletionVector.deserialize(frame(Arrays.copyOf(vector.array(), vector.position())), 2, "t");
    assertTrue(dv.isDeleted(9));
    assertTrue(dv.isDeleted((3L << 32) + 4));
    assertFalse(dv.isDeleted((1L << 32) + 9));
  }

  @Test
  public void roundTripsRandomPositionsAndRuns() {
    Random random = new Random(42);
    TreeSet<Long> expected = new TreeSet<>();
    DeletionVector dv = DeletionVector.empty();
    for (int i = 0; i < 20_000; i++) {
      long p = random.nextInt(3) == 0 ? (1L << 32) + random.nextInt(1_000_000) : random.nextInt(5_000_000);
      expected.add(p);
      dv.delete(p);
    }
    dv.positions().addRange(10_000_000, 10_070_000); // a long run
    for (long p = 10_000_000; p < 10_070_000; p++) {
      expected.add(p);
    }
    byte[] blob = dv.serialize();
    DeletionVector back = DeletionVector.deserialize(blob, expected.size(), "test vector");
    assertEquals(expected.size(), back.cardinality());
    List<Long> positions = new java.util.ArrayList<>();
    back.positions().forEach(positions::add);
    assertEquals(List.copyOf(expected), positions);
    assertTrue("run containers used", blob.length < 20_000 * 2 + 70_000 / 4);
    assertArrayEquals(blob, back.serialize());
  }

  @Test
  public void emptyVectorRoundTrips() {
    byte[] blob = DeletionVector.empty().serialize();
    assertEquals(4 + 4 + 8 + 4, blob.length);
    assertEquals(0, DeletionVector.deserialize(blob, 0, "t").cardinality());
  }

  @Test
  public void rejectsBadMagic() {
    byte[] blob = FOUR_POSITIONS.clone();
    blob[5] = 0x00;
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(blob, 4, "deletion vector in f.puffin at offset 4"));
    assertEquals("Invalid deletion vector in f.puffin at offset 4: at byte 4 of the blob, expected magic"
        + " D1 D3 39 64, found D1 00 39 64", e.getMessage());
  }

  @Test
  public void rejectsBadCrc() {
    byte[] blob = FOUR_POSITIONS.clone();
    blob[blob.length - 1] ^= 1;
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(blob, 4, "v"));
    assertEquals("Invalid v: at byte 64 of the blob, expected CRC-32 2e22dae0 of the magic and vector,"
        + " found 2e22dae1", e.getMessage());
    byte[] flipped = FOUR_POSITIONS.clone();
    flipped[30] ^= 4; // inside the vector: the CRC no longer matches
    assertThrows(FloeFormatException.class, () -> DeletionVector.deserialize(flipped, 4, "v"));
  }

  @Test
  public void rejectsTruncatedBlobs() {
    for (int length : new int[] {0, 3, 15, 40, FOUR_POSITIONS.length - 1}) {
      byte[] cut = Arrays.copyOf(FOUR_POSITIONS, length);
      FloeFormatException e = assertThrows(FloeFormatException.class,
          () -> DeletionVector.deserialize(cut, 4, "v"));
      assertTrue(e.getMessage(), e.getMessage().startsWith("Invalid v: at byte 0 of the blob, expected"));
    }
  }

  @Test
  public void rejectsAVectorShorterThanItsLength() {
    // framing and CRC intact, but the bitmap claims more data than there is
    byte[] vector = Arrays.copyOfRange(FOUR_POSITIONS, 8, FOUR_POSITIONS.length - 4 - 3);
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(frame(vector), 4, "v"));
    assertTrue(e.getMessage(), e.getMessage().contains("truncated or invalid 64-bit Roaring bitmap"));
  }

  @Test
  public void rejectsTrailingBytesAfterTheVector() {
    byte[] vector = Arrays.copyOf(Arrays.copyOfRange(FOUR_POSITIONS, 8, FOUR_POSITIONS.length - 4), 56 + 2);
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(frame(vector), 4, "v"));
    assertTrue(e.getMessage(), e.getMessage().contains("at byte 64 of the blob, expected the end of the vector"));
  }

  @Test
  public void rejectsKeysOutOfOrder() {
    ByteBuffer vector = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
    vector.putLong(2);
    vector.putInt(1);
    org.roaringbitmap.RoaringBitmap.bitmapOf(9).serialize(vector);
    vector.putInt(1);
    org.roaringbitmap.RoaringBitmap.bitmapOf(4).serialize(vector);
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(frame(Arrays.copyOf(vector.array(), vector.position())), 2, "v"));
    assertTrue(e.getMessage(), e.getMessage().contains("key 1 after key 1 (expected keys in strictly ascending"));
  }

  @Test
  public void rejectsKeysJavaCannotRead() {
    ByteBuffer vector = ByteBuffer.allocate(100).order(ByteOrder.LITTLE_ENDIAN);
    vector.putLong(1);
    vector.putInt(Integer.MAX_VALUE);
    org.roaringbitmap.RoaringBitmap.bitmapOf(1).serialize(vector);
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(frame(Arrays.copyOf(vector.array(), vector.position())), 1, "v"));
    assertTrue(e.getMessage(), e.getMessage().contains("key 2147483647 is larger than 2147483646"));
    assertThrows(IllegalArgumentException.class, () -> DeletionVector.empty().delete(-1));
    assertThrows(IllegalArgumentException.class,
        () -> DeletionVector.empty().delete(RoaringPositionBitmap.MAX_POSITION + 1));
  }

  @Test
  public void rejectsACardinalityOtherThanTheRecordCount() {
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.deserialize(FOUR_POSITIONS, 5, "v"));
    assertEquals("Invalid v: at byte 8 of the blob, expected cardinality 5 (the manifest's record_count),"
        + " found 4", e.getMessage());
  }

  @Test
  public void readsExactlyTheBlobRangeOfAPuffinFile() throws Exception {
    LocalFileIO io = new LocalFileIO();
    String location = new File(temp.getRoot(), "dvs.puffin").toURI().toString();
    BlobMetadata first;
    BlobMetadata second;
    try (PuffinWriter writer = Puffin.write(io.newOutputFile(location)).createdBy("test").build()) {
      first = writer.add(of(1, 3).toBlob("file:/data/a.parquet"));
      second = writer.add(of(0, 1, 2, (1L << 32) + 5).toBlob("file:/data/b.parquet"));
    }
    assertEquals(FOUR_POSITIONS.length, second.length());
    assertEquals(null, second.compressionCodec());
    assertEquals("4", second.properties().get("cardinality"));
    assertEquals("file:/data/b.parquet", second.properties().get("referenced-data-file"));
    assertEquals(List.of(2147483645), second.inputFields());
    assertEquals(-1, second.snapshotId());
    DeletionVector b = DeletionVector.read(io.newInputFile(location), second.offset(), second.length(), 4);
    assertEquals(of(0, 1, 2, (1L << 32) + 5).positions(), b.positions());
    DeletionVector a = DeletionVector.read(io.newInputFile(location), first.offset(), first.length(), 2);
    assertTrue(a.isDeleted(3));
    // a range that is off by one byte is caught by the framing checks
    assertThrows(FloeFormatException.class,
        () -> DeletionVector.read(io.newInputFile(location), second.offset() + 1, second.length(), 4));
    FloeFormatException e = assertThrows(FloeFormatException.class,
        () -> DeletionVector.read(io.newInputFile(location), second.offset(), second.length() + 1000, 4));
    assertTrue(e.getMessage(), e.getMessage().contains("truncated file"));
    assertTrue(e.getMessage(), e.getMessage().contains(location));
  }

  /** Frames a vector as a blob: BE length, magic, vector, BE CRC. */
  private static byte[] frame(byte[] vector) {
    ByteBuffer blob = ByteBuffer.allocate(vector.length + 12);
    blob.putInt(vector.length + 4).put(DeletionVector.MAGIC).put(vector);
    CRC32 crc = new CRC32();
    crc.update(blob.array(), 4, vector.length + 4);
    blob.putInt((int) crc.getValue());
    return blob.array();
  }
}
