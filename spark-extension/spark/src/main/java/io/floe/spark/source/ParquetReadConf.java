package io.floe.spark.source;

import io.floe.format.metadata.NameMapping;
import io.floe.spark.util.SparkSchemas;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * One Parquet file opened for Spark's vectorized reader: its footer (row groups of the split),
 * the open stream, and a private copy of the Hadoop configuration telling Spark's
 * {@code ParquetReadSupport} how to match the requested columns.
 *
 * <p>Column matching: when the file carries Parquet field ids (every file Floe, Iceberg or
 * pyiceberg writes), columns are matched by id only. A requested column whose id is not in the
 * file reads as nulls, even when a file column has the same name (a dropped and re-added column
 * must not resurface old values), and a renamed column still finds its data. When the file has
 * no field id at all (written by plain Spark or another tool, e.g. imported files), ids cannot
 * work and columns are matched by name instead, honouring {@code spark.sql.caseSensitive}, through
 * the table's name mapping when it has one ({@link NameMappedColumns}: a renamed column finds the
 * values written under its old name). A
 * file with ids on only some columns is matched by id: columns without an id read as nulls.
 *
 * <p>A Parquet predicate is set only for skipping (see {@link ParquetSkipFilters}), and never
 * where row positions are counted: a read that needs positions and skips asks for Spark's
 * row-index column ({@link #ROW_INDEX_FIELD}, last in its schema), unless the file has a column
 * of that name, which Spark would take for it; that file is then read whole and its positions
 * counted ({@link #readsRowIndex}).
 */
final class ParquetReadConf {
  private final HadoopInputFile file;
  private final SeekableInputStream stream;
  private final ParquetMetadata footer;
  private final Configuration conf;
  /** Spark's row-index column: requested last, Spark's reader fills it with each row's position in the file. */
  static final StructField ROW_INDEX_FIELD = new StructField(
      org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat$.MODULE$.ROW_INDEX_TEMPORARY_COLUMN_NAME(),
      org.apache.spark.sql.types.DataTypes.LongType, true, org.apache.spark.sql.types.Metadata.empty());
  private final boolean matchByFieldId;
  private final long firstRowPosition;
  private final boolean readsRowIndex;

  private ParquetReadConf(
      HadoopInputFile file, SeekableInputStream stream, ParquetMetadata footer, Configuration conf,
      boolean matchByFieldId, long firstRowPosition, boolean readsRowIndex) {
    this.file = file;
    this.stream = stream;
    this.footer = footer;
    this.conf = conf;
    this.matchByFieldId = matchByFieldId;
    this.firstRowPosition = firstRowPosition;
    this.readsRowIndex = readsRowIndex;
  }

  /**
   * Opens {@code path} and reads the footer of the row groups whose midpoint falls in
   * [start, start + length); a negative length selects the whole file.
   */
  static ParquetReadConf open(
      Path path, long start, long length, StructType dataSchema, Configuration base)
      throws IOException {
    return open(path, start, length, dataSchema, base, () -> null);
  }

  /** As above; a file without field ids is read through the name mapping {@code mapping} gives (or by name). */
  static ParquetReadConf open(
      Path path, long start, long length, StructType dataSchema, Configuration base,
      Supplier<NameMapping> mapping)
      throws IOException {
    return open(path, start, length, dataSchema, base, mapping, null);
  }

  /**
   * As above; Parquet also skips the row groups and pages that hold no row matching
   * {@code skipFilters} (null: none; see {@link ParquetSkipFilters}; where row positions count, the
   * read schema must hold Spark's row-index column).
   */
  static ParquetReadConf open(
      Path path, long start, long length, StructType dataSchema, Configuration base,
      Supplier<NameMapping> mapping, org.apache.spark.sql.sources.Filter[] skipFilters)
      throws IOException {
    return open(path, start, length, dataSchema, base, mapping, skipFilters, null);
  }

  /**
   * As above; {@code copies} (null: none) keeps the configured copies of {@code base} for the next
   * files of the same read (see {@link Copies}).
   */
  static ParquetReadConf open(
      Path path, long start, long length, StructType dataSchema, Configuration base,
      Supplier<NameMapping> mapping, org.apache.spark.sql.sources.Filter[] skipFilters, Copies copies)
      throws IOException {
    return open(path, -1, start, length, dataSchema, base, mapping, skipFilters, copies);
  }

  /**
   * As above, for a file of {@code fileLength} bytes (-1: unknown). A known length (a data file's
   * manifest entry) spares asking the file system for it, a HEAD request per file on an object
   * store; when the footer is not where that length puts it (a wrong length) or the file cannot be
   * opened so, the file system's own status is used, as for an unknown length.
   */
  static ParquetReadConf open(
      Path path, long fileLength, long start, long length, StructType dataSchema, Configuration base,
      Supplier<NameMapping> mapping, org.apache.spark.sql.sources.Filter[] skipFilters, Copies copies)
      throws IOException {
    HadoopReadOptions.Builder options = HadoopReadOptions.builder(base, path);
    options.withRecordFilter(FilterCompat.NOOP); // the footer is read whole; filters are the copy's
    if (length >= 0) {
      options.withRange(start, start + length);
    }
    ParquetReadOptions readOptions = options.build();
    HadoopInputFile file = null;
    SeekableInputStream stream = null;
    ParquetMetadata footer = null;
    if (fileLength >= 0) {
      HadoopInputFile sized = HadoopInputFile.fromStatus(new FileStatus(fileLength, false, 1, 0, 0, path), base);
      try {
        stream = TailReadStream.wrap(sized.newStream(), fileLength, TailReadStream.DEFAULT_TAIL);
        footer = ParquetFileReader.readFooter(sized, readOptions, stream);
        file = sized;
      } catch (IOException | RuntimeException e) {
        if (stream != null) {
          stream.close();
        }
        stream = null; // read below as a file of unknown length, which reports what is wrong
      }
    }
    if (file == null) {
      file = HadoopInputFile.fromPath(path, base);
      stream = TailReadStream.wrap(file.newStream(), file.getLength(), TailReadStream.DEFAULT_TAIL);
    }
    try {
      if (footer == null) {
        footer = ParquetFileReader.readFooter(file, readOptions, stream);
      }
      MessageType fileSchema = footer.getFileMetaData().getSchema();
      boolean byId = hasFieldIds(fileSchema);
      NameMapping names = byId ? null : mapping.get();
      StructField last = dataSchema.size() > 0 ? dataSchema.fields()[dataSchema.size() - 1] : null;
      boolean rowIndex = last == ROW_INDEX_FIELD;
      if (rowIndex) {
        StructType columns = new StructType(java.util.Arrays.copyOf(dataSchema.fields(), dataSchema.size() - 1));
        // Spark matches a requested field without a field id by name, in any case: where a table
        // column or a column of the file has that name, the file is read whole, positions counted
        if (hasName(columns.fieldNames(), ROW_INDEX_FIELD.name()) || hasName(fileSchema, ROW_INDEX_FIELD.name())) {
          rowIndex = false;
          dataSchema = columns;
          skipFilters = null;
        }
      }
      Configuration conf = copies == null ? configuredCopy(base, dataSchema, names, fileSchema, byId, skipFilters)
          : copies.get(base, skipFilters, dataSchema, names, fileSchema, byId);
      return new ParquetReadConf(file, stream, footer, conf, byId, firstRowPosition(footer), rowIndex);
    } catch (IOException | RuntimeException e) {
      stream.close();
      throw e;
    }
  }

  /**
   * A copy of {@code base} that tells Spark's reader how to read a file of {@code fileSchema}: the
   * requested columns (through the name mapping for a file without ids) and the skipping predicate.
   */
  private static Configuration configuredCopy(Configuration base, StructType dataSchema, NameMapping names,
      MessageType fileSchema, boolean byId, org.apache.spark.sql.sources.Filter[] skipFilters) {
    // a JobConf: Hadoop's task context (which Spark's reader is opened with) copies any other
    // configuration into a JobConf, a second copy per file
    Configuration conf = new org.apache.hadoop.mapred.JobConf(base);
    conf.unset(ParquetInputFormat.FILTER_PREDICATE);
    conf.unset(ParquetInputFormat.UNBOUND_RECORD_FILTER);
    boolean caseSensitive = conf.getBoolean(SQLConf.CASE_SENSITIVE().key(), false);
    StructType read = names == null ? dataSchema
        : NameMappedColumns.apply(dataSchema, fileSchema, names, caseSensitive);
    configure(conf, reserveRowIndexName(read, byId), byId);
    FilterPredicate skip = ParquetSkipFilters.predicate(skipFilters, dataSchema, read, fileSchema, byId);
    if (skip != null) {
      ParquetInputFormat.setFilterPredicate(conf, skip);
    }
    return conf;
  }

  /**
   * The configured copies of one read's Hadoop configuration, by what decides their settings, so
   * that the files of a read that look alike share one: copying a configuration of about a
   * thousand entries (twice: Hadoop's task context copies a plain configuration into a
   * {@code JobConf}, so the copies are JobConfs), writing the schema as JSON and serializing the
   * predicate cost about a millisecond per file. For a read whose base configuration and filters do not change (a reader
   * factory's broadcast configuration); they are compared by identity, the schemas and the name
   * mapping by value. A copy is never changed once made: Spark's reader only reads it.
   * Thread-safe; keeps the {@value #KEPT} most recently used copies.
   */
  static final class Copies {
    private static final int KEPT = 16;
    private final Map<Key, Configuration> copies = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Key, Configuration> eldest) {
        return size() > KEPT;
      }
    };

    int size() {
      synchronized (copies) {
        return copies.size();
      }
    }

    Configuration get(Configuration base, org.apache.spark.sql.sources.Filter[] skipFilters, StructType dataSchema,
        NameMapping names, MessageType fileSchema, boolean byId) {
      Key key = new Key(base, skipFilters, dataSchema, names, fileSchema);
      synchronized (copies) {
        Configuration kept = copies.get(key);
        if (kept != null) {
          return kept;
        }
      }
      Configuration made = configuredCopy(base, dataSchema, names, fileSchema, byId, skipFilters);
      synchronized (copies) {
        copies.put(key, made);
      }
      return made;
    }

    private record Key(Configuration base, org.apache.spark.sql.sources.Filter[] skipFilters,
        StructType dataSchema, NameMapping names, MessageType fileSchema) {
      @Override
      public boolean equals(Object o) {
        return o instanceof Key k && base == k.base && skipFilters == k.skipFilters
            && dataSchema.equals(k.dataSchema) && Objects.equals(names, k.names) && fileSchema.equals(k.fileSchema);
      }

      @Override
      public int hashCode() {
        return Objects.hash(System.identityHashCode(base), System.identityHashCode(skipFilters), dataSchema, names,
            fileSchema);
      }
    }
  }

  /**
   * {@code read} without a table column named as Spark's row-index column: Spark's reader fills a
   * requested column of that name with row positions. Columns are matched by field id, so such a
   * column is requested under another name; a file without field ids matches columns by name,
   * and cannot be read.
   */
  private static StructType reserveRowIndexName(StructType read, boolean byId) {
    String reserved = ROW_INDEX_FIELD.name();
    StructField[] fields = read.fields().clone();
    boolean renamed = false;
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      if (field.name().equals(reserved) && field.metadata().contains(SparkSchemas.FIELD_ID_KEY)) {
        if (!byId) {
          // the reader names the file: it reports this as the file being unreadable
          throw new IllegalStateException("the file has no Parquet field ids, so its column " + reserved
              + " is found by that name, which Spark's Parquet reader takes for row positions; write the file "
              + "with field ids, or name the column otherwise in the file and map it to the table's column "
              + "with the table property schema.name-mapping.default");
        }
        fields[i] = new StructField(reserved + "\u0000table-column", field.dataType(), field.nullable(),
            field.metadata());
        renamed = true;
      }
    }
    return renamed ? new StructType(fields) : read;
  }

  private static void configure(Configuration conf, StructType dataSchema, boolean byId) {
    conf.set(ParquetInputFormat.READ_SUPPORT_CLASS, ParquetReadSupport.class.getName());
    conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA(), dataSchema.json());
    conf.setBoolean(SQLConf.PARQUET_FIELD_ID_READ_ENABLED().key(), byId);
    // the "file has no ids" case is handled above by matching names; never fail on it
    conf.setBoolean(SQLConf.IGNORE_MISSING_PARQUET_FIELD_ID().key(), true);
    // Spark's schema converter reads these without defaults; keep the session's values if set
    setIfUnset(conf, SQLConf.PARQUET_BINARY_AS_STRING().key(), "false");
    setIfUnset(conf, SQLConf.PARQUET_INT96_AS_TIMESTAMP().key(), "true");
    setIfUnset(conf, SQLConf.CASE_SENSITIVE().key(), "false");
    setIfUnset(conf, SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED().key(), "true");
    setIfUnset(conf, SQLConf.LEGACY_PARQUET_NANOS_AS_LONG().key(), "false");
  }

  private static void setIfUnset(Configuration conf, String key, String value) {
    if (conf.get(key) == null) {
      conf.set(key, value);
    }
  }

  /** True when any node of the file schema carries a field id. */
  static boolean hasFieldIds(Type type) {
    if (type.getId() != null) {
      return true;
    }
    if (!type.isPrimitive()) {
      for (Type child : ((GroupType) type).getFields()) {
        if (hasFieldIds(child)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Position in the file of the split's first row, or -1 when Parquet did not report row index
   * offsets or the selected row groups are not contiguous.
   */
  private static long firstRowPosition(ParquetMetadata footer) {
    List<BlockMetaData> blocks = footer.getBlocks();
    if (blocks.isEmpty()) {
      return 0;
    }
    long first = blocks.get(0).getRowIndexOffset();
    long expected = first;
    for (BlockMetaData block : blocks) {
      if (first < 0 || block.getRowIndexOffset() != expected) {
        return -1;
      }
      expected += block.getRowCount();
    }
    return first;
  }

  HadoopInputFile file() {
    return file;
  }

  SeekableInputStream stream() {
    return stream;
  }

  ParquetMetadata footer() {
    return footer;
  }

  Configuration conf() {
    return conf;
  }

  boolean matchByFieldId() {
    return matchByFieldId;
  }

  long firstRowPosition() {
    return firstRowPosition;
  }

  /** Whether Spark's reader fills {@link #ROW_INDEX_FIELD}, requested last (else the file is read without it). */
  boolean readsRowIndex() {
    return readsRowIndex;
  }

  /** {@code schema} with Spark's row-index column added last (see {@link #readsRowIndex}). */
  static StructType withRowIndex(StructType schema) {
    StructField[] fields = java.util.Arrays.copyOf(schema.fields(), schema.size() + 1);
    fields[schema.size()] = ROW_INDEX_FIELD; // found by identity in open
    return new StructType(fields);
  }

  private static boolean hasName(MessageType fileSchema, String name) {
    return hasName(fileSchema.getFields().stream().map(Type::getName).toArray(String[]::new), name);
  }

  private static boolean hasName(String[] names, String name) {
    for (String candidate : names) {
      if (candidate.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}
