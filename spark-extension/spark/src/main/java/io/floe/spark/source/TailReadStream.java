package io.floe.spark.source;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet file's stream that reads the last {@code tailSize} bytes of the file in one read the
 * first time a read lands in them, and serves every later read inside them from memory.
 *
 * <p>Parquet reads a footer in two reads (its last 8 bytes for the footer's length, then the
 * footer), and the page indexes just before it in more; on an object store each is a ranged
 * {@code GET}, a round trip. With the tail read once, opening a file costs one request, and a file
 * no longer than the tail is read whole with it. Reads before the tail, and vectored reads outside
 * it, go to the wrapped stream as they were. Not thread-safe, as the streams it wraps.
 */
public final class TailReadStream extends SeekableInputStream {
  /** Bytes read at once at the end of a file: a footer of a few hundred columns fits. */
  public static final int DEFAULT_TAIL = 64 * 1024;

  private final SeekableInputStream in;
  private final long length;
  private final long tailStart;
  private byte[] tail;
  private long pos;
  /** Whether {@link #in} stands at {@link #pos} (it does not after reads served from the tail). */
  private boolean inAtPos = true;

  private TailReadStream(SeekableInputStream in, long length, int tailSize) throws IOException {
    this.in = in;
    this.length = length;
    this.tailStart = Math.max(0, length - tailSize);
    this.pos = in.getPos();
  }

  /** {@code in}, of a file of {@code length} bytes, with its last {@code tailSize} bytes read at once. */
  public static SeekableInputStream wrap(SeekableInputStream in, long length, int tailSize) throws IOException {
    if (length <= 0 || tailSize <= 0) {
      return in;
    }
    return new TailReadStream(in, length, tailSize);
  }

  /** Whether the tail has been read (for tests). */
  boolean tailRead() {
    return tail != null;
  }

  @Override
  public long getPos() {
    return pos;
  }

  @Override
  public void seek(long newPos) throws IOException {
    if (newPos < 0) {
      throw new EOFException("Cannot seek to a negative position: " + newPos);
    }
    if (newPos != pos) {
      pos = newPos;
      inAtPos = false;
    }
  }

  /** Whether the byte at {@link #pos} is served from the tail (reading the tail if needed). */
  private boolean inTail() throws IOException {
    if (pos < tailStart || pos >= length) {
      return false;
    }
    if (tail == null) {
      byte[] bytes = new byte[(int) (length - tailStart)];
      in.seek(tailStart);
      in.readFully(bytes);
      tail = bytes;
    }
    inAtPos = false; // the read is served from memory: the wrapped stream stays where it was
    return true;
  }

  private void positionIn() throws IOException {
    if (!inAtPos) {
      in.seek(pos);
      inAtPos = true;
    }
  }

  @Override
  public int read() throws IOException {
    if (inTail()) {
      return tail[(int) (pos++ - tailStart)] & 0xff;
    }
    positionIn();
    int b = in.read();
    if (b >= 0) {
      pos++;
    }
    return b;
  }

  @Override
  public int read(byte[] bytes, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (inTail()) {
      int n = (int) Math.min(len, length - pos);
      System.arraycopy(tail, (int) (pos - tailStart), bytes, off, n);
      pos += n;
      return n;
    }
    positionIn();
    int n = in.read(bytes, off, len);
    if (n > 0) {
      pos += n;
    }
    return n;
  }

  @Override
  public void readFully(byte[] bytes) throws IOException {
    readFully(bytes, 0, bytes.length);
  }

  @Override
  public void readFully(byte[] bytes, int off, int len) throws IOException {
    while (len > 0) {
      int n = read(bytes, off, len);
      if (n < 0) {
        throw new EOFException("Reached the end of the file with " + len + " bytes left to read");
      }
      off += n;
      len -= n;
    }
  }

  @Override
  public int read(ByteBuffer buf) throws IOException {
    if (!buf.hasRemaining()) {
      return 0;
    }
    if (inTail()) {
      int n = (int) Math.min(buf.remaining(), length - pos);
      buf.put(tail, (int) (pos - tailStart), n);
      pos += n;
      return n;
    }
    positionIn();
    int n = in.read(buf);
    if (n > 0) {
      pos += n;
    }
    return n;
  }

  @Override
  public void readFully(ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (read(buf) < 0) {
        throw new EOFException("Reached the end of the file with " + buf.remaining() + " bytes left to read");
      }
    }
  }

  @Override
  public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
    return in.readVectoredAvailable(allocator);
  }

  /** Ranges inside a tail already read come from memory; the others are read by the wrapped stream. */
  @Override
  public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator) throws IOException {
    List<ParquetFileRange> rest = new ArrayList<>(ranges.size());
    for (ParquetFileRange range : ranges) {
      if (tail != null && range.getOffset() >= tailStart && range.getOffset() + range.getLength() <= length) {
        ByteBuffer copy = allocator.allocate(range.getLength());
        copy.put(tail, (int) (range.getOffset() - tailStart), range.getLength());
        copy.flip();
        range.setDataReadFuture(CompletableFuture.completedFuture(copy));
      } else {
        rest.add(range);
      }
    }
    if (!rest.isEmpty()) {
      in.readVectored(rest, allocator);
      inAtPos = false;
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
