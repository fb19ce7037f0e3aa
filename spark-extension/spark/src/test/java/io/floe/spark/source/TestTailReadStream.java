package io.floe.spark.source;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.Test;

/**
 * {@link TailReadStream} returns exactly the bytes of the stream it wraps, for any sequence of
 * seeks and reads, and reads the file's tail from it once: a footer's reads cost one read.
 */
public class TestTailReadStream {
  /** A file in memory that counts the reads made of it (each a request on an object store). */
  static final class MemoryStream extends SeekableInputStream {
    final byte[] data;
    long pos;
    int reads;

    MemoryStream(byte[] data) {
      this.data = data;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = newPos;
    }

    @Override
    public int read() {
      reads++;
      return pos < data.length ? data[(int) pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      reads++;
      if (len == 0) {
        return 0;
      }
      if (pos >= data.length) {
        return -1;
      }
      int n = (int) Math.min(len, data.length - pos);
      System.arraycopy(data, (int) pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public void readFully(byte[] b) throws IOException {
      readFully(b, 0, b.length);
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
      if (pos + len > data.length) {
        throw new EOFException();
      }
      reads++;
      System.arraycopy(data, (int) pos, b, off, len);
      pos += len;
    }

    @Override
    public int read(ByteBuffer buf) {
      reads++;
      if (!buf.hasRemaining()) {
        return 0;
      }
      if (pos >= data.length) {
        return -1;
      }
      int n = (int) Math.min(buf.remaining(), data.length - pos);
      buf.put(data, (int) pos, n);
      pos += n;
      return n;
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      if (pos + buf.remaining() > data.length) {
        throw new EOFException();
      }
      reads++;
      int n = buf.remaining();
      buf.put(data, (int) pos, n);
      pos += n;
    }

    @Override
    public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
      return true;
    }

    @Override
    public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator) {
      reads++;
      for (ParquetFileRange r : ranges) {
        ByteBuffer b = allocator.allocate(r.getLength());
        b.put(data, (int) r.getOffset(), r.getLength());
        b.flip();
        r.setDataReadFuture(CompletableFuture.completedFuture(b));
      }
    }
  }

  private static byte[] bytes(int n, long seed) {
    byte[] out = new byte[n];
    new Random(seed).nextBytes(out);
    return out;
  }

  @Test
  public void aFootersReadsCostOneRead() throws IOException {
    byte[] file = bytes(1 << 20, 1);
    MemoryStream inner = new MemoryStream(file);
    TailReadStream s = (TailReadStream) TailReadStream.wrap(inner, file.length, 64 * 1024);
    byte[] lengthAndMagic = new byte[8];
    s.seek(file.length - 8);
    s.readFully(lengthAndMagic);
    byte[] footer = new byte[3000];
    s.seek(file.length - 8 - footer.length);
    s.readFully(footer);
    s.seek(file.length - 20000);
    ByteBuffer index = ByteBuffer.allocateDirect(5000);
    s.readFully(index);
    assertEquals("one read of the tail", 1, inner.reads);
    assertTrue(s.tailRead());
    assertArrayEquals(Arrays.copyOfRange(file, file.length - 8, file.length), lengthAndMagic);
    assertArrayEquals(Arrays.copyOfRange(file, file.length - 3008, file.length - 8), footer);
    index.flip();
    byte[] got = new byte[5000];
    index.get(got);
    assertArrayEquals(Arrays.copyOfRange(file, file.length - 20000, file.length - 15000), got);
    // a read before the tail goes to the wrapped stream, at the right place
    byte[] data = new byte[100];
    s.seek(12345);
    s.readFully(data);
    assertArrayEquals(Arrays.copyOfRange(file, 12345, 12445), data);
    assertEquals(2, inner.reads);
    assertEquals(12445, s.getPos());
  }

  @Test
  public void aFileShorterThanTheTailIsReadWhole() throws IOException {
    byte[] file = bytes(5000, 2);
    MemoryStream inner = new MemoryStream(file);
    SeekableInputStream s = TailReadStream.wrap(inner, file.length, 64 * 1024);
    s.seek(file.length - 8);
    s.readFully(new byte[8]);
    s.seek(0);
    byte[] all = new byte[file.length];
    s.readFully(all);
    List<ParquetFileRange> ranges = List.of(new ParquetFileRange(10, 100), new ParquetFileRange(4000, 1000));
    s.readVectored(ranges, new HeapByteBufferAllocator());
    assertEquals(1, inner.reads);
    assertArrayEquals(file, all);
    for (ParquetFileRange r : ranges) {
      ByteBuffer b = r.getDataReadFuture().join();
      byte[] got = new byte[b.remaining()];
      b.get(got);
      assertArrayEquals(Arrays.copyOfRange(file, (int) r.getOffset(), (int) r.getOffset() + r.getLength()), got);
    }
  }

  @Test
  public void anySequenceOfReadsReturnsTheFilesBytes() throws IOException {
    Random random = new Random(3);
    for (int round = 0; round < 40; round++) {
      byte[] file = bytes(1 + random.nextInt(300_000), round);
      int tailSize = 1 + random.nextInt(100_000);
      MemoryStream inner = new MemoryStream(file);
      SeekableInputStream s = TailReadStream.wrap(inner, file.length, tailSize);
      MemoryStream reference = new MemoryStream(file);
      for (int op = 0; op < 300; op++) {
        String where = "round " + round + " op " + op;
        long to = random.nextInt(4) == 0 ? Math.max(0, file.length - 1 - random.nextInt(tailSize))
            : random.nextInt(file.length + 1);
        if (random.nextBoolean()) {
          s.seek(to);
          reference.seek(to);
        }
        int len = random.nextInt(3) == 0 ? random.nextInt(10) : random.nextInt(70_000);
        switch (random.nextInt(6)) {
          case 0:
            assertEquals(where, reference.read(), s.read());
            break;
          case 1: {
            byte[] a = new byte[len];
            byte[] b = new byte[len];
            int n = s.read(a, 0, len);
            assertEquals(where, reference.read(b, 0, len), n);
            assertArrayEquals(where, b, a);
            break;
          }
          case 2: {
            byte[] a = new byte[len];
            boolean fits = reference.pos + len <= file.length;
            if (fits) {
              s.readFully(a);
              byte[] b = new byte[len];
              reference.readFully(b);
              assertArrayEquals(where, b, a);
            } else {
              assertThrows(where, EOFException.class, () -> s.readFully(a));
              s.seek(reference.pos);
            }
            break;
          }
          case 3: {
            ByteBuffer a = random.nextBoolean() ? ByteBuffer.allocate(len) : ByteBuffer.allocateDirect(len);
            ByteBuffer b = ByteBuffer.allocate(len);
            assertEquals(where, reference.read(b), s.read(a));
            a.flip();
            b.flip();
            assertEquals(where, b, a);
            break;
          }
          case 4: {
            ByteBuffer a = ByteBuffer.allocate(len);
            if (reference.pos + len <= file.length) {
              s.readFully(a);
              ByteBuffer b = ByteBuffer.allocate(len);
              reference.readFully(b);
              a.flip();
              b.flip();
              assertEquals(where, b, a);
            } else {
              assertThrows(where, EOFException.class, () -> s.readFully(a));
              s.seek(reference.pos);
            }
            break;
          }
          default: {
            List<ParquetFileRange> ranges = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
              int length = random.nextInt(Math.min(file.length, 20_000) + 1);
              long offset = random.nextInt(file.length - length + 1);
              ranges.add(new ParquetFileRange(offset, length));
            }
            s.readVectored(ranges, new HeapByteBufferAllocator());
            for (ParquetFileRange r : ranges) {
              ByteBuffer got = r.getDataReadFuture().join();
              assertEquals(where, ByteBuffer.wrap(file, (int) r.getOffset(), r.getLength()), got);
            }
            break;
          }
        }
        assertEquals(where, reference.pos, s.getPos());
      }
    }
  }
}
