package io.floe.format.puffin;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

/**
 * How a Puffin blob (or footer payload) is compressed: {@code lz4} is a single LZ4 frame with the
 * content size, {@code zstd} a single Zstandard frame with the content size; absent means none.
 */
public enum PuffinCompressionCodec {
  NONE(null),
  LZ4("lz4"),
  ZSTD("zstd");

  private static final int ZSTD_LEVEL = 3;

  private final String codecName;

  PuffinCompressionCodec(String codecName) {
    this.codecName = codecName;
  }

  /** The {@code compression-codec} value written in the footer; null for {@link #NONE}. */
  public String codecName() {
    return codecName;
  }

  /** The codec named {@code name} in a footer; null or absent means {@link #NONE}. */
  public static PuffinCompressionCodec forName(String name) {
    if (name == null) {
      return NONE;
    }
    for (PuffinCompressionCodec codec : values()) {
      if (name.equals(codec.codecName)) {
        return codec;
      }
    }
    throw new IllegalArgumentException(
        "Unsupported Puffin compression codec: " + name + " (expected lz4 or zstd)");
  }

  byte[] compress(byte[] data) {
    switch (this) {
      case NONE:
        return data;
      case LZ4:
        try {
          ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 64);
          try (LZ4FrameOutputStream lz4 = new LZ4FrameOutputStream(out,
              LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB, data.length,
              LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
              LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE)) {
            lz4.write(data);
          }
          return out.toByteArray();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot compress with lz4", e);
        }
      case ZSTD:
        return Zstd.compress(data, ZSTD_LEVEL); // one frame; the content size is in its header
      default:
        throw new IllegalStateException("Unknown codec " + this);
    }
  }

  /** Decompresses one frame; throws IOException when the bytes are not a valid frame. */
  byte[] decompress(byte[] data) throws IOException {
    switch (this) {
      case NONE:
        return data;
      case LZ4:
        try (InputStream in = new LZ4FrameInputStream(new ByteArrayInputStream(data))) {
          return in.readAllBytes();
        } catch (RuntimeException e) {
          throw new IOException("invalid lz4 frame: " + e.getMessage(), e);
        }
      case ZSTD:
        try (InputStream in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(data))) {
          return in.readAllBytes(); // also frames that do not state their content size
        } catch (RuntimeException e) {
          throw new IOException("invalid zstd frame: " + e.getMessage(), e);
        }
      default:
        throw new IllegalStateException("Unknown codec " + this);
    }
  }
}
