package io.floe.format.puffin;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The Puffin container layout ({@code format/puffin-spec.md} of apache/iceberg):
 * <pre>
 *   offset 0          : magic "PFA1" (50 46 41 31)
 *   offset 4          : blob_1 ... blob_n           (offsets and lengths listed in the footer)
 *   footer start F    : magic "PFA1"
 *   F + 4             : payload, UTF-8 JSON {"blobs": [...], "properties": {...}}, maybe LZ4
 *   end - 12          : int32 little-endian payload length P
 *   end - 8           : 4 flag bytes; byte 0 bit 0 = payload LZ4-compressed; all else 0
 *   end - 4           : magic "PFA1"
 *   footer size = P + 16, F = file size - footer size
 * </pre>
 */
final class PuffinFormat {
  private PuffinFormat() {}

  static final byte[] MAGIC = {0x50, 0x46, 0x41, 0x31};
  static final int MAGIC_LENGTH = MAGIC.length;
  static final int PAYLOAD_LENGTH_SIZE = 4;
  static final int FLAGS_SIZE = 4;
  /** Payload length, flags and the closing magic. */
  static final int FOOTER_STRUCT_LENGTH = PAYLOAD_LENGTH_SIZE + FLAGS_SIZE + MAGIC_LENGTH;
  /** Bytes of a footer besides its payload: opening magic and the struct. */
  static final int FOOTER_OVERHEAD = MAGIC_LENGTH + FOOTER_STRUCT_LENGTH;
  /** Flags byte 0, bit 0: the footer payload is compressed with LZ4. */
  static final int FLAG_FOOTER_COMPRESSED_BYTE = 0;
  static final int FLAG_FOOTER_COMPRESSED_BIT = 0;
  /** The codec of a compressed footer payload. */
  static final PuffinCompressionCodec FOOTER_CODEC = PuffinCompressionCodec.LZ4;

  /** The footer struct: payload length (LE) and flags, then the closing magic. */
  static byte[] footerStruct(int payloadLength, boolean compressed) {
    ByteBuffer struct = ByteBuffer.allocate(FOOTER_STRUCT_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    struct.putInt(payloadLength);
    byte[] flags = new byte[FLAGS_SIZE];
    if (compressed) {
      flags[FLAG_FOOTER_COMPRESSED_BYTE] |= (byte) (1 << FLAG_FOOTER_COMPRESSED_BIT);
    }
    struct.put(flags);
    struct.put(MAGIC);
    return struct.array();
  }

  static int readIntLittleEndian(byte[] data, int offset) {
    return ByteBuffer.wrap(data, offset, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  static boolean isMagic(byte[] data, int offset) {
    for (int i = 0; i < MAGIC_LENGTH; i++) {
      if (data[offset + i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  static String hex(byte[] data, int offset, int length) {
    StringBuilder out = new StringBuilder();
    for (int i = offset; i < offset + length && i < data.length; i++) {
      out.append(out.length() == 0 ? "" : " ").append(String.format("%02X", data[i] & 0xFF));
    }
    return out.toString();
  }
}
