package io.floe.format.puffin;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one Puffin file (layout in {@link PuffinFormat}): blobs as they are added, then the
 * footer on {@link #finish()}. Open one with {@link Puffin#write}.
 *
 * <pre>
 *   try (PuffinWriter writer = Puffin.write(outputFile).createdBy("Floe 0.1").build()) {
 *     BlobMetadata where = writer.add(blob);
 *     writer.finish();
 *     long size = writer.fileSize(), footer = writer.footerSize();
 *   }
 * </pre>
 */
public final class PuffinWriter implements AutoCloseable {
  private final String location;
  private final OutputStream stream;
  private final PuffinCompressionCodec defaultCodec;
  private final boolean compressFooter;
  private final Map<String, String> properties;
  private final List<BlobMetadata> written = new ArrayList<>();
  private long position = 0;
  private long footerSize = -1;
  private boolean closed = false;

  PuffinWriter(String location, OutputStream out, PuffinCompressionCodec defaultCodec,
      boolean compressFooter, Map<String, String> properties) throws IOException {
    this.location = location;
    this.stream = new BufferedOutputStream(out, 64 * 1024);
    this.defaultCodec = defaultCodec;
    this.compressFooter = compressFooter;
    this.properties = new LinkedHashMap<>(properties);
    try {
      write(PuffinFormat.MAGIC);
    } catch (IOException e) {
      stream.close();
      throw e;
    }
  }

  public String location() {
    return location;
  }

  /** Compresses and writes {@code blob}; returns its footer entry (offset, stored length). */
  public BlobMetadata add(Blob blob) {
    checkOpen();
    PuffinCompressionCodec codec = blob.requestedCompression() != null
        ? blob.requestedCompression() : defaultCodec;
    byte[] stored = codec.compress(blob.data());
    long offset = position;
    try {
      write(stored);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write blob " + blob.type() + " to " + location, e);
    }
    BlobMetadata metadata = new BlobMetadata(blob.type(), blob.inputFields(), blob.snapshotId(),
        blob.sequenceNumber(), offset, stored.length, codec.codecName(), blob.properties());
    written.add(metadata);
    return metadata;
  }

  /**
   * Writes {@code storedBytes}, a blob exactly as another Puffin file stores it (compressed with
   * {@code source}'s codec, never recompressed), with {@code source}'s type, fields, snapshot id,
   * sequence number and codec and the given properties; returns its footer entry in this file.
   */
  public BlobMetadata copy(BlobMetadata source, byte[] storedBytes, Map<String, String> properties) {
    checkOpen();
    if (storedBytes.length != source.length()) {
      throw new IllegalArgumentException("Cannot copy blob " + source.type() + " to " + location + ": "
          + storedBytes.length + " bytes given, its footer entry says " + source.length());
    }
    long offset = position;
    try {
      write(storedBytes);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write blob " + source.type() + " to " + location, e);
    }
    BlobMetadata metadata = new BlobMetadata(source.type(), source.inputFields(), source.snapshotId(),
        source.sequenceNumber(), offset, storedBytes.length, source.compressionCodec(), properties);
    written.add(metadata);
    return metadata;
  }

  /** Writes the footer and closes the file. */
  public void finish() {
    checkOpen();
    closed = true;
    try (OutputStream out = stream) {
      FileMetadata footer = new FileMetadata(written, properties);
      byte[] payload = PuffinFooterParser.toJson(footer).getBytes(StandardCharsets.UTF_8);
      if (compressFooter) {
        payload = PuffinFormat.FOOTER_CODEC.compress(payload);
      }
      long footerStart = position;
      write(PuffinFormat.MAGIC);
      write(payload);
      write(PuffinFormat.footerStruct(payload.length, compressFooter));
      out.flush();
      this.footerSize = position - footerStart;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the Puffin footer of " + location, e);
    }
  }

  private void write(byte[] bytes) throws IOException {
    stream.write(bytes);
    position += bytes.length;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Puffin writer for " + location + " is closed");
    }
  }

  public List<BlobMetadata> writtenBlobsMetadata() {
    return Collections.unmodifiableList(written);
  }

  /** The file size; known after {@link #finish()}. */
  public long fileSize() {
    checkFinished();
    return position;
  }

  /** The footer size (payload + 16), as {@code file-footer-size-in-bytes} wants it. */
  public long footerSize() {
    checkFinished();
    return footerSize;
  }

  private void checkFinished() {
    if (footerSize < 0) {
      throw new IllegalStateException("Puffin file " + location + " is not finished");
    }
  }

  /** Finishes the file (writes the footer) unless {@link #finish()} already did. */
  @Override
  public void close() {
    if (!closed) {
      finish();
    }
  }
}
