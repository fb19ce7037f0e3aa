package io.floe.format.puffin;

import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Entry point to Puffin files:
 * <pre>
 *   PuffinWriter writer = Puffin.write(outputFile).createdBy("Floe 0.1")
 *       .compress(PuffinCompressionCodec.ZSTD)    // default codec of blobs that name none
 *       .build();
 *   PuffinReader reader = Puffin.read(inputFile).withFileSize(size).build();
 * </pre>
 * Footers are written uncompressed unless {@link WriteBuilder#compressFooter()} is called
 * (pyiceberg cannot read compressed footers); readers accept both.
 */
public final class Puffin {
  private Puffin() {}

  public static WriteBuilder write(OutputFile file) {
    return new WriteBuilder(file);
  }

  public static ReadBuilder read(InputFile file) {
    return new ReadBuilder(file);
  }

  /** Options of a new Puffin file. */
  public static final class WriteBuilder {
    private final OutputFile file;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private PuffinCompressionCodec codec = PuffinCompressionCodec.NONE;
    private boolean compressFooter = false;
    private boolean overwrite = false;

    private WriteBuilder(OutputFile file) {
      this.file = Objects.requireNonNull(file, "Output file is null");
    }

    /** The {@code created-by} file property, e.g. "Floe 0.1.0". */
    public WriteBuilder createdBy(String applicationIdentifier) {
      return set(StandardPuffinProperties.CREATED_BY, applicationIdentifier);
    }

    /** A file property written in the footer. */
    public WriteBuilder set(String key, String value) {
      properties.put(Objects.requireNonNull(key, "Property key is null"),
          Objects.requireNonNull(value, "Value of property " + key + " is null"));
      return this;
    }

    /** The codec of blobs that do not ask for one; none by default. */
    public WriteBuilder compress(PuffinCompressionCodec defaultCodec) {
      this.codec = Objects.requireNonNull(defaultCodec, "Codec is null");
      return this;
    }

    /** Compresses the footer payload with LZ4 (flag bit 0); other readers may not support it. */
    public WriteBuilder compressFooter() {
      this.compressFooter = true;
      return this;
    }

    /** Replaces an existing file instead of failing. */
    public WriteBuilder overwrite() {
      this.overwrite = true;
      return this;
    }

    public PuffinWriter build() {
      try {
        return new PuffinWriter(file.location(), overwrite ? file.createOrOverwrite() : file.create(),
            codec, compressFooter, properties);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create Puffin file " + file.location(), e);
      }
    }
  }

  /** Options of reading a Puffin file. */
  public static final class ReadBuilder {
    private final InputFile file;
    private Long fileSize;
    private Long footerSize;

    private ReadBuilder(InputFile file) {
      this.file = Objects.requireNonNull(file, "Input file is null");
    }

    /** The known file size (saves asking the file system). */
    public ReadBuilder withFileSize(long size) {
      this.fileSize = size;
      return this;
    }

    /** The footer size as recorded elsewhere (e.g. statistics); the reader checks it. */
    public ReadBuilder withFooterSize(long size) {
      this.footerSize = size;
      return this;
    }

    public PuffinReader build() {
      return new PuffinReader(file, fileSize, footerSize);
    }
  }
}
