package io.floe.format.puffin;

import io.floe.format.FloeFormatException;
import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Copies a Puffin file into a new one, for a file whose blobs name other files (a deletion
 * vector's {@code referenced-data-file}) when those files move. Every blob is copied in offset
 * order with its stored bytes unchanged (never decompressed), type, fields, snapshot id, sequence
 * number and codec, and the properties {@code properties} gives it; the file properties are kept
 * and the footer is written uncompressed. Blob offsets may change (the first blob still starts
 * right after the leading magic), so callers re-point their references with {@link Result#blobAt}.
 *
 * <pre>
 *   PuffinCopy.Result copy = PuffinCopy.copy(source, target, blob -> newPropertiesOf(blob));
 *   BlobMetadata moved = copy.blobAt(oldContentOffset);   // offset and length in the new file
 *   long size = copy.fileSize();
 * </pre>
 */
public final class PuffinCopy {
  private PuffinCopy() {}

  /** Writes the copy to {@code target}, which must not exist; a caller that gives up deletes it. */
  public static Result copy(InputFile source, OutputFile target,
      Function<BlobMetadata, Map<String, String>> properties) {
    FileMetadata footer = Puffin.read(source).build().fileMetadata();
    List<BlobMetadata> blobs = new ArrayList<>(footer.blobs());
    blobs.sort(Comparator.comparingLong(BlobMetadata::offset));
    Puffin.WriteBuilder builder = Puffin.write(target);
    footer.properties().forEach(builder::set);
    Map<Long, BlobMetadata> byOldOffset = new LinkedHashMap<>();
    try (PuffinWriter writer = builder.build(); BlobBytes bytes = new BlobBytes(source)) {
      for (BlobMetadata blob : blobs) {
        byte[] stored = bytes.read(blob);
        byOldOffset.put(blob.offset(), writer.copy(blob, stored, properties.apply(blob)));
      }
      writer.finish();
      return new Result(writer.location(), byOldOffset, writer.fileSize(), writer.footerSize());
    }
  }

  /** Where each blob of the source went, and the new file's size. */
  public static final class Result {
    private final String location;
    private final Map<Long, BlobMetadata> byOldOffset;
    private final long fileSize;
    private final long footerSize;

    private Result(String location, Map<Long, BlobMetadata> byOldOffset, long fileSize, long footerSize) {
      this.location = location;
      this.byOldOffset = Collections.unmodifiableMap(byOldOffset);
      this.fileSize = fileSize;
      this.footerSize = footerSize;
    }

    public String location() {
      return location;
    }

    /** The new footer entry of the source blob that started at {@code oldOffset}, or null if none did. */
    public BlobMetadata blobAt(long oldOffset) {
      return byOldOffset.get(oldOffset);
    }

    /** The new footer entries by the source offsets, in file order. */
    public Map<Long, BlobMetadata> blobs() {
      return byOldOffset;
    }

    public long fileSize() {
      return fileSize;
    }

    /** The new footer size (payload + 16), as {@code file-footer-size-in-bytes} wants it. */
    public long footerSize() {
      return footerSize;
    }
  }

  /** Reads blobs in ascending offset order from one stream (reopened if an offset goes back). */
  private static final class BlobBytes implements AutoCloseable {
    private final InputFile file;
    private InputStream in;
    private long position;

    BlobBytes(InputFile file) {
      this.file = file;
    }

    byte[] read(BlobMetadata blob) {
      if (blob.length() > Integer.MAX_VALUE) {
        throw new FloeFormatException("Invalid Puffin file " + file.location() + ": at offset " + blob.offset()
            + ", expected a blob shorter than 2 GiB, found " + blob.length() + " bytes");
      }
      try {
        if (in == null || blob.offset() < position) {
          close();
          in = file.newStream();
          position = 0;
        }
        in.skipNBytes(blob.offset() - position);
        byte[] bytes = in.readNBytes((int) blob.length());
        position = blob.offset() + bytes.length;
        if (bytes.length != blob.length()) {
          throw new FloeFormatException("Invalid Puffin file " + file.location() + ": at offset " + blob.offset()
              + ", expected " + blob.length() + " bytes, found " + bytes.length + " (truncated file)");
        }
        return bytes;
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read blob " + blob.type() + " at offset " + blob.offset()
            + " of " + file.location(), e);
      }
    }

    @Override
    public void close() {
      if (in != null) {
        try {
          in.close();
        } catch (IOException e) {
          // a read-only stream: nothing was lost
        }
        in = null;
      }
    }
  }
}
