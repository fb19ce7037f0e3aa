package io.floe.format.deletes;

import io.floe.format.FloeFormatException;
import io.floe.format.io.InputFile;
import io.floe.format.puffin.Blob;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinCompressionCodec;
import io.floe.format.puffin.StandardBlobTypes;
import io.floe.format.puffin.StandardPuffinProperties;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * The deleted row positions of one data file, and the {@code deletion-vector-v1} blob that stores
 * them in a Puffin file:
 * <pre>
 *   offset 0     : int32 big-endian  L = 4 + length of the vector
 *   offset 4     : magic D1 D3 39 64
 *   offset 8     : vector: portable 64-bit Roaring bitmap (see {@link RoaringPositionBitmap})
 *   offset 4 + L : uint32 big-endian CRC-32 of bytes [4, 4 + L) (magic and vector)
 *   blob length  = L + 8
 * </pre>
 * The blob is stored uncompressed. Its footer entry has {@code fields} [2147483645] ({@code _pos}),
 * snapshot id and sequence number -1, and the properties {@code referenced-data-file} and
 * {@code cardinality}; the manifest entry's {@code content_offset} and
 * {@code content_size_in_bytes} locate it, and its {@code record_count} is the cardinality.
 */
public final class DeletionVector {
  /** The field id of {@code _pos}, listed as the blob's {@code fields}. */
  public static final int POS_FIELD_ID = 2147483645;
  static final byte[] MAGIC = {(byte) 0xD1, (byte) 0xD3, 0x39, 0x64};
  static final int LENGTH_SIZE = 4;
  static final int MAGIC_SIZE = MAGIC.length;
  static final int CRC_SIZE = 4;

  private final RoaringPositionBitmap positions;

  private DeletionVector(RoaringPositionBitmap positions) {
    this.positions = positions;
  }

  public static DeletionVector empty() {
    return new DeletionVector(new RoaringPositionBitmap());
  }

  /** A vector over {@code positions} (not copied). */
  public static DeletionVector of(RoaringPositionBitmap positions) {
    return new DeletionVector(positions);
  }

  public void delete(long position) {
    positions.add(position);
  }

  public boolean isDeleted(long position) {
    return positions.contains(position);
  }

  public long cardinality() {
    return positions.cardinality();
  }

  public RoaringPositionBitmap positions() {
    return positions;
  }

  /** The blob bytes; run-length encodes the bitmap first, as Java does. */
  public byte[] serialize() {
    positions.runLengthEncode();
    long vectorSize = positions.serializedSizeInBytes();
    long total = LENGTH_SIZE + MAGIC_SIZE + vectorSize + CRC_SIZE;
    if (total > Integer.MAX_VALUE) {
      throw new IllegalStateException("Deletion vector too large to serialize: " + total + " bytes");
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) total);
    buffer.order(ByteOrder.BIG_ENDIAN).putInt((int) (MAGIC_SIZE + vectorSize));
    buffer.put(MAGIC);
    positions.serialize(buffer.order(ByteOrder.LITTLE_ENDIAN));
    buffer.order(ByteOrder.BIG_ENDIAN).putInt((int) crc(buffer.array(), LENGTH_SIZE, MAGIC_SIZE + (int) vectorSize));
    return buffer.array();
  }

  /** The Puffin blob of this vector for the data file {@code referencedDataFile}. */
  public Blob toBlob(String referencedDataFile) {
    return Blob.of(StandardBlobTypes.DV_V1, List.of(POS_FIELD_ID), -1, -1, serialize())
        .withCompression(PuffinCompressionCodec.NONE)
        .withProperties(properties(referencedDataFile));
  }

  private Map<String, String> properties(String referencedDataFile) {
    Map<String, String> properties = new LinkedHashMap<>(); // in Java's order
    properties.put(StandardPuffinProperties.REFERENCED_DATA_FILE,
        Objects.requireNonNull(referencedDataFile, "Referenced data file is null"));
    properties.put(StandardPuffinProperties.CARDINALITY, Long.toString(cardinality()));
    return properties;
  }

  /**
   * Reads the blob at [offset, offset + length) of the Puffin file, as the manifest's
   * {@code content_offset} and {@code content_size_in_bytes} give it, and checks it holds
   * {@code expectedCardinality} positions (the manifest's {@code record_count}).
   */
  public static DeletionVector read(InputFile puffin, long offset, long length, long expectedCardinality) {
    if (length > Integer.MAX_VALUE || length < 0 || offset < 0) {
      throw new FloeFormatException("Invalid deletion vector in " + puffin.location() + " at offset "
          + offset + ": expected an offset of 0 or more and a blob length from 0 to " + Integer.MAX_VALUE
          + ", found offset " + offset + " and length " + length);
    }
    byte[] blob = Puffin.read(puffin).build().readRange(offset, (int) length);
    return deserialize(blob, expectedCardinality, "deletion vector in " + puffin.location() + " at offset " + offset);
  }

  /**
   * Parses blob bytes, checking the length, magic, CRC, keys and that the cardinality is
   * {@code expectedCardinality} (negative: unchecked). {@code source} names the blob in errors.
   */
  public static DeletionVector deserialize(byte[] blob, long expectedCardinality, String source) {
    int minimum = LENGTH_SIZE + MAGIC_SIZE + 8 + CRC_SIZE;
    if (blob.length < minimum) {
      throw corrupt(source, 0, "at least " + minimum + " bytes", blob.length + " bytes");
    }
    ByteBuffer buffer = ByteBuffer.wrap(blob).order(ByteOrder.BIG_ENDIAN);
    int length = buffer.getInt(0);
    if (length != blob.length - LENGTH_SIZE - CRC_SIZE) {
      throw corrupt(source, 0, "length " + (blob.length - LENGTH_SIZE - CRC_SIZE)
          + " (blob length " + blob.length + " - 8)", String.valueOf(Integer.toUnsignedLong(length)));
    }
    for (int i = 0; i < MAGIC_SIZE; i++) {
      if (blob[LENGTH_SIZE + i] != MAGIC[i]) {
        throw corrupt(source, LENGTH_SIZE, "magic D1 D3 39 64", hex(blob, LENGTH_SIZE, MAGIC_SIZE));
      }
    }
    long expectedCrc = crc(blob, LENGTH_SIZE, length);
    long actualCrc = Integer.toUnsignedLong(buffer.getInt(LENGTH_SIZE + length));
    if (expectedCrc != actualCrc) {
      throw corrupt(source, LENGTH_SIZE + length, "CRC-32 " + Long.toHexString(expectedCrc)
          + " of the magic and vector", Long.toHexString(actualCrc));
    }
    ByteBuffer vector = ByteBuffer.wrap(blob, LENGTH_SIZE + MAGIC_SIZE, length - MAGIC_SIZE).slice()
        .order(ByteOrder.LITTLE_ENDIAN);
    RoaringPositionBitmap positions = RoaringPositionBitmap.deserialize(vector, source + " (vector at byte 8)");
    if (vector.hasRemaining()) {
      throw corrupt(source, LENGTH_SIZE + MAGIC_SIZE + vector.position(), "the end of the vector",
          vector.remaining() + " more bytes");
    }
    long cardinality = positions.cardinality();
    if (expectedCardinality >= 0 && cardinality != expectedCardinality) {
      throw corrupt(source, LENGTH_SIZE + MAGIC_SIZE, "cardinality " + expectedCardinality
          + " (the manifest's record_count)", String.valueOf(cardinality));
    }
    return new DeletionVector(positions);
  }

  private static long crc(byte[] bytes, int offset, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, offset, length);
    return crc.getValue();
  }

  private static String hex(byte[] data, int offset, int length) {
    StringBuilder out = new StringBuilder();
    for (int i = offset; i < offset + length; i++) {
      out.append(out.length() == 0 ? "" : " ").append(String.format("%02X", data[i] & 0xFF));
    }
    return out.toString();
  }

  private static FloeFormatException corrupt(String source, int offset, String expected, String found) {
    return new FloeFormatException("Invalid " + source + ": at byte " + offset + " of the blob, expected "
        + expected + ", found " + found);
  }
}
