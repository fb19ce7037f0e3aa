package io.floe.format.puffin;

import io.floe.format.FloeFormatException;
import io.floe.format.io.InputFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a Puffin file (layout in {@link PuffinFormat}): checks the magic at both ends, the footer
 * length arithmetic and the flags, parses the footer, and reads blobs by offset and length.
 * Open one with {@link Puffin#read}. Errors name the file, the offset, what was expected and what
 * was found.
 */
public final class PuffinReader {
  /** Bytes read from the end at once, enough for the footer of most files. */
  private static final int TAIL_READ = 16 * 1024;

  private final InputFile file;
  private Long fileSize;
  private final Long expectedFooterSize;
  private FileMetadata metadata;
  private long footerStart = -1;

  PuffinReader(InputFile file, Long fileSize, Long expectedFooterSize) {
    this.file = file;
    this.fileSize = fileSize; // asked from the file system only when the footer is read
    this.expectedFooterSize = expectedFooterSize;
  }

  public String location() {
    return file.location();
  }

  /** The footer: blobs and file properties (read once, then kept). */
  public FileMetadata fileMetadata() {
    if (metadata == null) {
      metadata = readFooter();
    }
    return metadata;
  }

  /** The footer size (payload + 16). */
  public long footerSize() {
    fileMetadata();
    return fileSize() - footerStart;
  }

  private long fileSize() {
    if (fileSize == null) {
      fileSize = file.length();
    }
    return fileSize;
  }

  private FileMetadata readFooter() {
    long fileSize = fileSize();
    int minimum = PuffinFormat.MAGIC_LENGTH + PuffinFormat.FOOTER_OVERHEAD;
    if (fileSize < minimum) {
      throw corrupt(0, "a file of at least " + minimum + " bytes", fileSize + " bytes");
    }
    checkMagic(readRange(0, PuffinFormat.MAGIC_LENGTH), 0, 0);
    int tailLength = (int) Math.min(fileSize, TAIL_READ);
    long tailStart = fileSize - tailLength;
    byte[] tail = readRange(tailStart, tailLength);
    int structAt = tailLength - PuffinFormat.FOOTER_STRUCT_LENGTH;
    checkMagic(tail, structAt + PuffinFormat.PAYLOAD_LENGTH_SIZE + PuffinFormat.FLAGS_SIZE, tailStart);
    int payloadLength = PuffinFormat.readIntLittleEndian(tail, structAt);
    long footerSize = (long) payloadLength + PuffinFormat.FOOTER_OVERHEAD;
    long start = fileSize - footerSize;
    if (payloadLength < 0 || start < PuffinFormat.MAGIC_LENGTH) {
      throw corrupt(tailStart + structAt, "a footer payload length from 0 to "
          + (fileSize - minimum), String.valueOf(payloadLength));
    }
    if (expectedFooterSize != null && expectedFooterSize != footerSize) {
      throw corrupt(tailStart + structAt, "footer size " + expectedFooterSize
          + " (as listed for the file)", footerSize + " (payload length " + payloadLength + " + 16)");
    }
    boolean compressed = readFlags(tail, structAt + PuffinFormat.PAYLOAD_LENGTH_SIZE, tailStart);
    byte[] footer = start >= tailStart
        ? Arrays.copyOfRange(tail, (int) (start - tailStart), structAt)
        : readRange(start, PuffinFormat.MAGIC_LENGTH + payloadLength);
    checkMagic(footer, 0, start);
    byte[] payload = Arrays.copyOfRange(footer, PuffinFormat.MAGIC_LENGTH, footer.length);
    if (compressed) {
      try {
        payload = PuffinFormat.FOOTER_CODEC.decompress(payload);
      } catch (IOException e) {
        throw corrupt(start + PuffinFormat.MAGIC_LENGTH, "an LZ4-compressed footer payload", e.getMessage());
      }
    }
    FileMetadata parsed;
    try {
      parsed = PuffinFooterParser.fromJson(new String(payload, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new FloeFormatException("Invalid Puffin file " + location() + ": footer payload at offset "
          + (start + PuffinFormat.MAGIC_LENGTH) + ": " + e.getMessage(), e);
    }
    this.footerStart = start;
    for (BlobMetadata blob : parsed.blobs()) {
      checkBlobRange(blob, start);
    }
    return parsed;
  }

  private boolean readFlags(byte[] data, int at, long base) {
    boolean compressed = false;
    for (int i = 0; i < PuffinFormat.FLAGS_SIZE; i++) {
      int flags = data[at + i] & 0xFF;
      int known = i == PuffinFormat.FLAG_FOOTER_COMPRESSED_BYTE ? 1 << PuffinFormat.FLAG_FOOTER_COMPRESSED_BIT : 0;
      if ((flags & ~known) != 0) {
        throw corrupt(base + at + i, "flag byte " + i + " with no unknown bits set (0x"
            + Integer.toHexString(known) + " at most)", "0x" + Integer.toHexString(flags));
      }
      compressed |= (flags & known) != 0;
    }
    return compressed;
  }

  private void checkMagic(byte[] data, int at, long base) {
    if (!PuffinFormat.isMagic(data, at)) {
      throw corrupt(base + at, "magic " + PuffinFormat.hex(PuffinFormat.MAGIC, 0, 4),
          PuffinFormat.hex(data, at, PuffinFormat.MAGIC_LENGTH));
    }
  }

  private void checkBlobRange(BlobMetadata blob, long blobsEnd) {
    if (blob.offset() < PuffinFormat.MAGIC_LENGTH || blob.offset() + blob.length() > blobsEnd) {
      throw corrupt(blob.offset(), "blob " + blob.type() + " within bytes [" + PuffinFormat.MAGIC_LENGTH
          + ", " + blobsEnd + ") before the footer", "offset " + blob.offset() + ", length " + blob.length());
    }
  }

  /** The uncompressed bytes of {@code blob}, an entry of {@link #fileMetadata()}. */
  public byte[] readBlob(BlobMetadata blob) {
    checkBlobRange(blob, footerStart >= 0 ? footerStart : fileSize() - PuffinFormat.FOOTER_OVERHEAD);
    if (blob.length() > Integer.MAX_VALUE) {
      throw corrupt(blob.offset(), "a blob shorter than 2 GiB", blob.length() + " bytes");
    }
    byte[] stored = readRange(blob.offset(), (int) blob.length());
    PuffinCompressionCodec codec;
    try {
      codec = PuffinCompressionCodec.forName(blob.compressionCodec());
    } catch (IllegalArgumentException e) {
      throw corrupt(blob.offset(), "compression-codec lz4 or zstd", blob.compressionCodec());
    }
    try {
      return codec.decompress(stored);
    } catch (IOException e) {
      throw corrupt(blob.offset(), "a " + codec.codecName() + " frame of " + blob.length() + " bytes",
          e.getMessage());
    }
  }

  /**
   * The stored bytes at [offset, offset + length), without parsing the footer: how deletion
   * vectors are read, from the manifest's {@code content_offset} and {@code content_size_in_bytes}.
   * Fails naming the file when the bytes are not all there.
   */
  public byte[] readRange(long offset, int length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("Invalid range of " + location() + ": offset " + offset
          + ", length " + length);
    }
    try (InputStream in = file.newStream()) {
      in.skipNBytes(offset);
      byte[] bytes = in.readNBytes(length);
      if (bytes.length != length) {
        throw new FloeFormatException("Invalid Puffin file " + file.location() + ": at offset " + offset
            + ", expected " + length + " bytes, found " + bytes.length + " (truncated file)");
      }
      return bytes;
    } catch (java.io.EOFException e) {
      throw new FloeFormatException("Invalid Puffin file " + file.location() + ": at offset " + offset
          + ", expected " + length + " bytes, found end of file (truncated file)", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + length + " bytes at offset " + offset
          + " of " + file.location(), e);
    }
  }

  private FloeFormatException corrupt(long offset, String expected, String found) {
    return new FloeFormatException("Invalid Puffin file " + location() + ": at offset " + offset
        + ", expected " + expected + ", found " + found);
  }
}
