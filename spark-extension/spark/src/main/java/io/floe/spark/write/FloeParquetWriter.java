package io.floe.spark.write;

import io.floe.format.manifest.Metrics;
import io.floe.format.manifest.MetricsModes;
import io.floe.format.metadata.TableProperties;
import io.floe.format.types.Schema;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;

/**
 * Writes Spark {@link InternalRow}s to one new Parquet data file with Floe field ids on every
 * schema node, and reports the file's {@link Metrics} and row-group offsets once closed.
 *
 * <p>Rows must have the given Spark type, whose columns match the Floe schema in order. Values go
 * through Spark's Parquet writer (standard 3-level lists and maps, INT64 microsecond timestamps,
 * int32/int64/fixed decimals by precision). Table properties read here:
 * {@code write.parquet.compression-codec} (zstd), {@code write.parquet.compression-level} (zstd
 * only), {@code write.parquet.row-group-size-bytes} (128 MiB), {@code write.parquet.page-size-bytes}
 * (1 MiB), {@code write.parquet.page-row-limit} (20000), {@code write.parquet.dict-size-bytes}
 * (2 MiB) and the metrics modes of {@link MetricsModes}.
 *
 * <p>The file must not exist. {@code file:} locations are written with plain Java I/O (no Hadoop
 * checksum side files); other schemes through Hadoop's FileSystem.
 */
public final class FloeParquetWriter implements Closeable {
  public static final String COMPRESSION_CODEC = TableProperties.PARQUET_COMPRESSION;
  public static final String COMPRESSION_LEVEL = TableProperties.PARQUET_COMPRESSION_LEVEL;
  public static final String ROW_GROUP_SIZE_BYTES = TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES;
  public static final String PAGE_SIZE_BYTES = TableProperties.PARQUET_PAGE_SIZE_BYTES;
  public static final String PAGE_ROW_LIMIT = TableProperties.PARQUET_PAGE_ROW_LIMIT;
  public static final String DICT_SIZE_BYTES = TableProperties.PARQUET_DICT_SIZE_BYTES;

  private static final String ZSTD_LEVEL_KEY = "parquet.compression.codec.zstd.level";

  private final String location;
  private final FloeParquetWriteSupport support;
  private final MetricsModes metricsModes;
  private final TrackedOutputFile file;
  private final ParquetWriter<InternalRow> writer;
  private boolean closed;
  private Metrics metrics;
  private List<Long> splitOffsets;

  public FloeParquetWriter(Schema schema, StructType sparkType, String location, Configuration conf,
      Map<String, String> properties) {
    if (sparkType.length() != schema.columns().size()) {
      throw new IllegalArgumentException("Cannot write " + sparkType.length() + " Spark columns to a table with "
          + schema.columns().size() + " columns: " + sparkType.catalogString());
    }
    this.location = location;
    this.support = new FloeParquetWriteSupport(schema);
    this.metricsModes = MetricsModes.from(properties);
    Configuration writeConf = new Configuration(conf);
    ParquetWriteSupport.setSchema(sparkType, writeConf);
    // the keys Spark's writer and schema converter read; ids come from the Floe schema instead
    writeConf.set(SQLConf.PARQUET_WRITE_LEGACY_FORMAT().key(), "false");
    writeConf.set(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE().key(), "TIMESTAMP_MICROS");
    writeConf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED().key(), "false");
    writeConf.set(SQLConf.PARQUET_ANNOTATE_VARIANT_LOGICAL_TYPE().key(), "false");
    CompressionCodecName codec = codec(properties.getOrDefault(COMPRESSION_CODEC, TableProperties.PARQUET_COMPRESSION_DEFAULT));
    String level = properties.get(COMPRESSION_LEVEL);
    if (level != null && codec == CompressionCodecName.ZSTD) {
      writeConf.set(ZSTD_LEVEL_KEY, level);
    }
    try {
      this.file = new TrackedOutputFile(outputFile(location, writeConf));
      this.writer = new Builder(file, support)
          .withConf(writeConf)
          .withWriteMode(ParquetFileWriter.Mode.CREATE)
          .withCompressionCodec(codec)
          .withRowGroupSize(TableProperties.longValue(properties, ROW_GROUP_SIZE_BYTES))
          .withPageSize(TableProperties.intValue(properties, PAGE_SIZE_BYTES))
          .withPageRowCountLimit(TableProperties.intValue(properties, PAGE_ROW_LIMIT))
          .withDictionaryPageSize(TableProperties.intValue(properties, DICT_SIZE_BYTES))
          .build();
    } catch (java.nio.file.NoSuchFileException | java.io.FileNotFoundException e) {
      // the folder vanished between creating it and opening the file: the table was dropped or moved
      throw new UncheckedIOException("Cannot create Parquet file " + location + ": its folder does not exist any"
          + " more (was the table dropped or renamed while this write ran?)", e);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot create Parquet file " + location + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  public void write(InternalRow row) throws IOException {
    writer.write(row);
  }

  /** Bytes written so far, buffered rows included; the exact file size once closed. */
  public long length() {
    return closed ? file.length() : writer.getDataSize();
  }

  public String location() {
    return location;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    writer.close();
    List<BlockMetaData> blocks = writer.getFooter().getBlocks();
    this.metrics = ParquetFooterMetrics.collect(blocks, support.writeSchema(), metricsModes);
    this.splitOffsets = ParquetFooterMetrics.splitOffsets(blocks);
  }

  /** Column metrics of the file; only after {@link #close()}. */
  public Metrics metrics() {
    checkClosed("metrics");
    return metrics;
  }

  /** Start offsets of the row groups, ascending; only after {@link #close()}. */
  public List<Long> splitOffsets() {
    checkClosed("split offsets");
    return splitOffsets;
  }

  private void checkClosed(String what) {
    if (!closed || metrics == null) {
      throw new IllegalStateException("Cannot return " + what + " of " + location + ": writer is not closed");
    }
  }

  private static OutputFile outputFile(String location, Configuration conf) throws IOException {
    Path path = new Path(location);
    URI uri = path.toUri();
    if ("file".equalsIgnoreCase(uri.getScheme())) {
      java.nio.file.Path local = Paths.get(uri.getPath());
      java.nio.file.Path folder = local.getParent();
      if (folder != null) {
        try {
          Files.createDirectories(folder);
        } catch (java.nio.file.FileAlreadyExistsException e) {
          // createDirectories saw the folder, then found no folder there: it was deleted meanwhile
          if (!Files.exists(folder)) {
            throw (java.nio.file.NoSuchFileException) new java.nio.file.NoSuchFileException(folder.toString())
                .initCause(e);
          }
          throw e;
        }
      }
      return new LocalOutputFile(local);
    }
    return HadoopOutputFile.fromPath(path, conf);
  }

  private static CompressionCodecName codec(String name) {
    String codec = name.trim().toUpperCase(Locale.ROOT);
    if (codec.equals("NONE")) {
      return CompressionCodecName.UNCOMPRESSED;
    }
    try {
      return CompressionCodecName.valueOf(codec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Unsupported Parquet compression codec: " + name);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<InternalRow, Builder> {
    private final WriteSupport<InternalRow> support;

    Builder(OutputFile file, WriteSupport<InternalRow> support) {
      super(file);
      this.support = support;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    @SuppressWarnings("deprecation") // still abstract in parquet-hadoop 1.16
    protected WriteSupport<InternalRow> getWriteSupport(Configuration conf) {
      return support;
    }

    @Override
    protected WriteSupport<InternalRow> getWriteSupport(ParquetConfiguration conf) {
      return support;
    }
  }
}
