package io.floe.spark.write;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/** A Parquet output file that remembers the final length of what was written to it. */
final class TrackedOutputFile implements OutputFile {
  private final OutputFile delegate;
  private long length = -1;

  TrackedOutputFile(OutputFile delegate) {
    this.delegate = delegate;
  }

  /** Bytes in the file once its stream is closed; -1 before. */
  long length() {
    return length;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    return new Stream(delegate.create(blockSizeHint));
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return new Stream(delegate.createOrOverwrite(blockSizeHint));
  }

  @Override
  public boolean supportsBlockSize() {
    return delegate.supportsBlockSize();
  }

  @Override
  public long defaultBlockSize() {
    return delegate.defaultBlockSize();
  }

  @Override
  public String getPath() {
    return delegate.getPath();
  }

  private final class Stream extends PositionOutputStream {
    private final PositionOutputStream out;

    Stream(PositionOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      long end = out.getPos();
      out.close();
      length = end;
    }
  }
}
