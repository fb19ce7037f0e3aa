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

  private static final long MIN_LIMIT = 16L << 20;
  private static final long MAX_LIMIT = 256L << 20;
  private static final int MAX_RATIO = 256;

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

  /**
   * Decompresses one frame; throws IOException when the bytes are not a valid frame or expand past
   * {@link #MAX_RATIO} times their size (at least {@link #MIN_LIMIT}): a few KiB of zstd can hold
   * gigabytes of zeros, while Puffin's blobs (sketches, index pages) compress a few times at most.
   */
  byte[] decompress(byte[] data) throws IOException {
    if (this == NONE) {
      return data;
    }
    long limit = Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, (long) MAX_RATIO * data.length));
    try (InputStream in = this == LZ4 ? new LZ4FrameInputStream(new ByteArrayInputStream(data))
        : new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(data))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        if (n > limit - out.size()) {
          throw new IOException(codecName + " frame of " + data.length + " bytes expands past " + limit
              + " bytes");
        }
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (RuntimeException e) {
      throw new IOException("invalid " + codecName + " frame: " + e.getMessage(), e);
    }
  }
}
