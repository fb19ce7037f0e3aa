package io.floe.format.manifest;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.apache.avro.file.Codec;
import org.apache.avro.file.BZip2Codec;
import org.apache.avro.file.XZCodec;

/**
 * Decompresses one block of an Avro container file, never past a given number of bytes: a crafted
 * block of a few KiB can declare or expand to gigabytes. Deflate and zstandard are streamed and cut
 * at the limit; a snappy block states its size up front, checked before anything is allocated
 * ({@link SnappyBlock}); bzip2 and xz, which no table writer uses, go to Avro's codecs and are
 * checked afterwards.
 */
final class AvroBlockCodec {
  private static final java.util.List<String> NAMES = java.util.List.of("null", "deflate", "zstandard", "snappy",
      "bzip2", "xz");

  private final String name;

  private AvroBlockCodec(String name) {
    this.name = name;
  }

  static AvroBlockCodec forName(String name) throws IOException {
    if (!NAMES.contains(name)) {
      throw new IOException("unsupported codec " + name + " (expected one of " + String.join(", ", NAMES) + ")");
    }
    return new AvroBlockCodec(name);
  }

  /** The block's bytes decompressed; fails past {@code limit} bytes. */
  byte[] decompress(byte[] block, long limit) throws IOException {
    int max = (int) Math.max(0, Math.min(limit, Integer.MAX_VALUE - 8));
    switch (name) {
      case "null":
        return block;
      case "deflate":
        return inflate(block, max);
      case "zstandard":
        try (InputStream in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(block))) {
          return readAtMost(in, max, "zstandard");
        } catch (RuntimeException e) {
          throw new IOException("invalid zstandard block: " + e.getMessage(), e);
        }
      case "snappy":
        return SnappyBlock.decompress(block, max);
      default:
        return avroDecompress(block, max);
    }
  }

  /** bzip2 and xz through Avro's codecs (their jars come with Spark); the limit is checked afterwards. */
  private byte[] avroDecompress(byte[] block, int max) throws IOException {
    Codec codec = name.equals("bzip2") ? new BZip2Codec() : new XZCodec(XZCodec.DEFAULT_COMPRESSION);
    ByteBuffer out = codec.decompress(ByteBuffer.wrap(block));
    if (out.remaining() > max) {
      throw new IOException(name + " block expands past " + max + " bytes, the limit for this file");
    }
    byte[] data = new byte[out.remaining()];
    out.get(data);
    return data;
  }

  private static byte[] inflate(byte[] compressed, int limit) throws IOException {
    Inflater inflater = new Inflater(true);
    try {
      inflater.setInput(compressed);
      ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(limit, compressed.length * 4L));
      byte[] buffer = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          break;
        }
        if (n > limit - out.size()) {
          throw new IOException("deflate block expands past " + limit + " bytes, the limit for this file");
        }
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      throw new IOException("invalid deflate block: " + e.getMessage(), e);
    } finally {
      inflater.end();
    }
  }

  private static byte[] readAtMost(InputStream in, int limit, String codec) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      if (n > limit - out.size()) {
        throw new IOException(codec + " block expands past " + limit + " bytes, the limit for this file");
      }
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }
}
