package io.floe.format.manifest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * An Avro snappy block: raw snappy data, then the CRC-32 of the uncompressed bytes (4 bytes, big
 * endian). Decoded here rather than by Avro's codec, which allocates the size the block declares
 * (up to 4 GiB) before reading it; this checks the size against a limit first and every copy against
 * the bytes produced so far.
 * <pre>
 * uncompressed length (unsigned varint) | element* | crc32
 * element: tag byte, low 2 bits: 00 literal, 01 copy (1-byte offset), 10 copy (2-byte), 11 copy (4-byte)
 * </pre>
 */
final class SnappyBlock {
  private SnappyBlock() {}

  static byte[] decompress(byte[] block, int limit) throws IOException {
    if (block.length < 5) {
      throw invalid("a block of " + block.length + " bytes");
    }
    int end = block.length - 4;
    int pos = 0;
    long length = 0;
    for (int shift = 0; ; shift += 7) {
      if (shift > 28 || pos >= end) {
        throw invalid("no uncompressed length");
      }
      int b = block[pos++] & 0xff;
      length |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
    }
    if (length > limit) {
      throw new IOException("snappy block declares " + length + " bytes, past the limit of " + limit
          + " for this file");
    }
    byte[] out = new byte[(int) length];
    int written = 0;
    while (pos < end) {
      int tag = block[pos++] & 0xff;
      int kind = tag & 3;
      if (kind == 0) {
        int size = tag >>> 2;
        if (size >= 60) {
          int extra = size - 59;
          if (pos + extra > end) {
            throw invalid("a literal length past the block");
          }
          size = 0;
          for (int i = 0; i < extra; i++) {
            size |= (block[pos++] & 0xff) << (8 * i);
          }
        }
        long literal = Integer.toUnsignedLong(size) + 1;
        if (literal > end - pos || literal > out.length - written) {
          throw invalid("a literal of " + literal + " bytes past the block or the declared length");
        }
        System.arraycopy(block, pos, out, written, (int) literal);
        pos += (int) literal;
        written += (int) literal;
      } else {
        int size;
        long offset;
        int extra = kind == 1 ? 1 : kind == 2 ? 2 : 4;
        if (pos + extra > end) {
          throw invalid("a copy past the block");
        }
        if (kind == 1) {
          size = ((tag >>> 2) & 7) + 4;
          offset = ((long) (tag >>> 5) << 8) | (block[pos] & 0xff);
        } else {
          size = (tag >>> 2) + 1;
          offset = 0;
          for (int i = 0; i < extra; i++) {
            offset |= (long) (block[pos + i] & 0xff) << (8 * i);
          }
        }
        pos += extra;
        if (offset <= 0 || offset > written || size > out.length - written) {
          throw invalid("a copy of " + size + " bytes from offset " + offset + " at byte " + written);
        }
        for (int i = 0; i < size; i++, written++) {
          out[written] = out[written - (int) offset];
        }
      }
    }
    if (written != out.length) {
      throw invalid(written + " bytes where the block declares " + out.length);
    }
    CRC32 crc = new CRC32();
    crc.update(out);
    if ((int) crc.getValue() != ByteBuffer.wrap(block, end, 4).getInt()) {
      throw invalid("a CRC-32 that does not match the uncompressed bytes");
    }
    return out;
  }

  private static IOException invalid(String found) {
    return new IOException("invalid snappy block: " + found);
  }
}
