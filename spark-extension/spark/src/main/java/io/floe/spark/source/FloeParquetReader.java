package io.floe.spark.source;

import io.floe.format.FileErrors;
import io.floe.format.FloeException;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.metadata.NameMapping;
import io.floe.spark.util.SparkSchemas;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongPredicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.parquet.schema.GroupType;
import org.apache.spark.TaskKilledException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;

/**
 * Reads one Parquet data file (or a split of it) as columnar batches through Spark's own
 * {@link VectorizedParquetRecordReader}, for flat and nested schemas.
 *
 * <pre>
 *   PartitionReader&lt;ColumnarBatch&gt; batches = FloeParquetReader.read(file.path())
 *       .project(sparkReadSchema)          // StructFields carry "parquet.field.id" metadata
 *       .conf(hadoopConf)
 *       .batchSize(4096)
 *       .deletedPositions(bitmap)          // optional: position deletes and deletion vectors
 *       .equalityDeletes(keyColumns, sets) // optional
 *       .build();                          // or buildRowReader() for InternalRow
 * </pre>
 *
 * <p>Columns are matched by Parquet field id, or by name for files without any id (see
 * {@link ParquetReadConf}). Timestamps follow the requested type: {@code TIMESTAMP(MICROS,
 * adjusted=true)} reads as TimestampType and {@code adjusted=false} as TimestampNTZType. Dates and
 * timestamps are never rebased (Floe files use the proleptic Gregorian calendar).
 *
 * <p>Metadata columns are requested fields marked with metadata key {@value #METADATA_COLUMN_KEY}:
 * {@code _file} (string, the location given to {@link #read}) and {@code _pos} (long, row
 * position in the file counted from 0 in file order). Other constants, e.g. {@code _spec_id},
 * can be supplied with {@link Builder#constant}.
 *
 * <p>Deletes: a bitmap of deleted row positions, applied batch by batch (probed per row only for
 * a batch whose rows span pages that {@code skipFilters} skipped), and equality delete sets drop
 * deleted rows from every batch; the live rows are moved up in the Parquet reader's own vectors
 * (see {@link BatchProjection}), and batches whose rows are all deleted are skipped.
 * ({@code filterDeleted} takes a per-row predicate instead, for callers without a bitmap.) Where
 * positions count and {@code skipFilters} may skip, positions come from Spark's row-index column.
 *
 * <p>Each batch is valid until the next call to {@link #next()}. The file is opened on the first
 * call to {@link #next()}.
 */
public final class FloeParquetReader implements PartitionReader<ColumnarBatch> {
  /** Field metadata key marking a requested column as a metadata column. */
  public static final String METADATA_COLUMN_KEY = "floe.metadata-column";
  public static final String FILE_COLUMN = "_file";
  public static final String POS_COLUMN = "_pos";
  public static final int DEFAULT_BATCH_SIZE = 4096;

  private final String location;
  private final long start;
  private final long length;
  private final long fileLength;
  private final Configuration conf;
  private final int batchSize;
  private final BatchProjection projection;
  private final boolean requireFileColumns;
  private final AutoCloseable onClose;
  private final Function<FileNotFoundException, ? extends IOException> onMissingFile;
  private final String nameMappingJson;
  private final String tableName;
  private final org.apache.spark.sql.sources.Filter[] skipFilters;
  private final ParquetReadConf.Copies confCopies;
  private VectorizedParquetRecordReader reader;
  private long nextPosition;
  /** The column of the rows' positions in the file that Spark's reader fills, or -1 (positions counted). */
  private int rowIndexOrdinal = -1;
  private long rowsDecoded;
  private ColumnarBatch current;
  private boolean closed;

  private FloeParquetReader(Builder builder) {
    this.location = builder.location;
    this.start = builder.start;
    this.length = builder.length;
    this.fileLength = builder.fileLength;
    this.conf = builder.conf != null ? builder.conf : new Configuration();
    this.batchSize = builder.batchSize;
    this.requireFileColumns = builder.requireFileColumns;
    this.onClose = builder.onClose;
    this.onMissingFile = builder.onMissingFile;
    this.nameMappingJson = builder.nameMappingJson;
    this.tableName = builder.tableName;
    this.skipFilters = builder.skipFilters;
    this.confCopies = builder.confCopies;
    this.projection = new BatchProjection(builder.readSchema, location, builder.constants, batchSize,
        builder.deletedPositions, builder.isDeleted, builder.equalityColumns, builder.equalitySets,
        builder.skipFilters);
  }

  /**
   * The Hadoop configurations that the readers of one read share: each file's reader needs a copy
   * of the base configuration with its own settings (columns, filters), about a millisecond per file
   * to make; files that look alike share one ({@link ParquetReadConf.Copies}). For readers built with
   * the same base configuration object, e.g. the files of one driver-side read. Thread-safe.
   */
  public static final class SharedConfigurations {
    final ParquetReadConf.Copies copies = new ParquetReadConf.Copies();

    /** How many distinct configurations are kept (for tests). */
    int size() {
      return copies.size();
    }
  }

  /** Starts a reader for the data file at {@code location} (a URI or path string). */
  public static Builder read(String location) {
    return new Builder(location);
  }

  @Override
  public boolean next() throws IOException {
    if (closed) {
      return false;
    }
    if (reader == null) {
      try {
        open();
      } catch (FileNotFoundException e) {
        throw onMissingFile != null ? onMissingFile.apply(e) : e;
      } catch (IOException e) {
        if (interrupted(e)) {
          throw e;
        }
        throw corrupt(e);
      } catch (RuntimeException e) {
        throw corrupt(e);
      }
    }
    while (nextBatch()) {
      ColumnarBatch raw = reader.resultBatch();
      rowsDecoded += raw.numRows();
      if (rowIndexOrdinal >= 0) {
        current = projection.project(raw, raw.column(rowIndexOrdinal));
        if (current != null) {
          return true;
        }
        continue;
      }
      long firstPosition = nextPosition;
      nextPosition += raw.numRows();
      current = projection.project(raw, firstPosition);
      if (current != null) {
        return true;
      }
    }
    current = null;
    return false;
  }

  private boolean nextBatch() throws IOException {
    try {
      return reader.nextBatch();
    } catch (IOException e) {
      if (interrupted(e)) {
        throw e;
      }
      throw corrupt(e);
    } catch (RuntimeException e) {
      throw corrupt(e);
    }
  }

  /** A read stopped by a cancelled task, not by the file's bytes. */
  private static boolean interrupted(IOException e) {
    return e instanceof java.io.InterruptedIOException || e instanceof java.nio.channels.ClosedByInterruptException
        || e.getCause() instanceof InterruptedException;
  }

  /**
   * A damaged data file (bad magic, footer, page or encoding, as Parquet reports it) as Floe's file
   * error naming the file: Parquet's own messages often name neither the file nor the table.
   * Floe's errors and a killed task pass through.
   */
  private RuntimeException corrupt(Exception e) {
    if (e instanceof FloeException || e instanceof TaskKilledException) {
      return (RuntimeException) e;
    }
    return FileErrors.unreadable(location, null, e);
  }

  /** Rows Spark's Parquet reader returned so far, before deletes and filters (for tests). */
  long rowsDecoded() {
    return rowsDecoded;
  }

  @Override
  public ColumnarBatch get() {
    if (current == null) {
      throw new IllegalStateException("No current batch: call next() first");
    }
    return current;
  }

  private void open() throws IOException {
    Path path = new Path(location);
    // Skipping row groups and pages would shift the positions that deletes and _pos count: where
    // positions are needed and filters can skip, Spark's reader is asked for each row's position
    // in the file as one more column (it follows the pages Parquet skips); ParquetReadConf says
    // whether it could be asked for this file (else the file is read whole, positions counted)
    boolean skipping = skipFilters != null && skipFilters.length > 0;
    StructType readSchema = skipping && projection.needsPositions()
        ? ParquetReadConf.withRowIndex(projection.dataSchema()) : projection.dataSchema();
    ParquetReadConf file = ParquetReadConf.open(path, fileLength, start, length, readSchema, conf,
        this::nameMapping, skipping ? skipFilters : null, confCopies);
    this.rowIndexOrdinal = file.readsRowIndex() ? projection.dataSchema().size() : -1;
    try {
      if (projection.needsPositions() && file.firstRowPosition() < 0) {
        throw new IOException("Cannot count row positions in " + location
            + ": Parquet reported no row index offsets for the split at " + start);
      }
      if (requireFileColumns) {
        checkFileColumns(file);
      }
      this.nextPosition = file.firstRowPosition();
      long splitLength = length >= 0 ? length : file.file().getLength() - start;
      // no INT96 time zone conversion, no calendar rebasing; on-heap vectors
      VectorizedParquetRecordReader vectorized = new VectorizedParquetRecordReader(
          null, "CORRECTED", "UTC", "CORRECTED", "UTC", false, batchSize);
      try {
        vectorized.initialize(
            new FileSplit(path, start, splitLength, new String[0]),
            new TaskAttemptContextImpl(file.conf(), new TaskAttemptID()),
            Option.apply(file.file()), Option.apply(file.stream()), Option.apply(file.footer()));
        vectorized.resultBatch(); // allocates the batch (no partition columns)
      } catch (IOException | RuntimeException | InterruptedException e) {
        vectorized.close();
        throw e;
      }
      this.reader = vectorized;
    } catch (IOException | RuntimeException e) {
      file.stream().close();
      throw e;
    } catch (InterruptedException e) {
      file.stream().close();
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while opening " + location, e);
    }
  }

  /**
   * The table's name mappings parsed, by their JSON: a read of many files without field ids parses
   * its mapping once.
   */
  private static final Map<String, NameMapping> PARSED_MAPPINGS = java.util.Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, NameMapping> eldest) {
          return size() > 8;
        }
      });

  /** The table's name mapping, or null; parsed only for a file without field ids. */
  private NameMapping nameMapping() {
    if (nameMappingJson == null) {
      return null;
    }
    try {
      NameMapping parsed = PARSED_MAPPINGS.get(nameMappingJson);
      if (parsed == null) {
        parsed = NameMapping.parse(nameMappingJson);
        PARSED_MAPPINGS.put(nameMappingJson, parsed);
      }
      return parsed;
    } catch (IllegalArgumentException e) {
      throw new io.floe.format.FloeFormatException("Cannot read data file " + location
          + (tableName == null ? "" : " of table " + tableName) + ": it has no Parquet field ids and the table property "
          + NameMapping.DEFAULT + ", which says which column is which, is invalid (" + e.getMessage()
          + "); fix it with ALTER TABLE ... SET TBLPROPERTIES or remove it to match columns by name", e);
    }
  }

  /** Fails, naming the file and column, when a requested column (nested ones too) is not in the file. */
  private void checkFileColumns(ParquetReadConf file) throws IOException {
    GroupType fileSchema = file.footer().getFileMetaData().getSchema();
    String missing = missingColumn(projection.dataSchema(), fileSchema, file.matchByFieldId(), "");
    if (missing != null) {
      throw new io.floe.format.FloeFormatException("Invalid file " + location + ": it has no column " + missing
          + (file.matchByFieldId() ? " (columns are matched by field id)" : " (matched by name: the file has no field ids)"));
    }
  }

  private static String missingColumn(StructType requested, GroupType fileGroup, boolean byId, String prefix) {
    for (StructField field : requested.fields()) {
      org.apache.parquet.schema.Type match = null;
      boolean hasId = field.metadata().contains(SparkSchemas.FIELD_ID_KEY);
      long id = hasId ? field.metadata().getLong(SparkSchemas.FIELD_ID_KEY) : -1;
      for (org.apache.parquet.schema.Type candidate : fileGroup.getFields()) {
        boolean same = byId
            ? hasId && candidate.getId() != null && candidate.getId().intValue() == id
            : candidate.getName().equalsIgnoreCase(field.name());
        if (same) {
          match = candidate;
          break;
        }
      }
      String name = prefix + field.name() + (hasId ? " (field id " + id + ")" : "");
      if (match == null) {
        return name;
      }
      if (field.dataType() instanceof StructType struct && !match.isPrimitive()) {
        String nested = missingColumn(struct, match.asGroupType(), byId, prefix + field.name() + ".");
        if (nested != null) {
          return nested;
        }
      }
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    current = null;
    try {
      if (reader != null) {
        reader.close(); // also closes the stream and the reader's vectors
      }
    } finally {
      try {
        projection.close();
      } finally {
        if (onClose != null) {
          try {
            onClose.close();
          } catch (IOException | RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new IOException("Cannot release the deletes of " + location, e);
          }
        }
      }
    }
  }

  /** Configures a {@link FloeParquetReader}; every setting but the schema is optional. */
  public static final class Builder {
    private final String location;
    private long start = 0;
    private long length = -1;
    private long fileLength = -1;
    private StructType readSchema;
    private Configuration conf;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private LongPredicate isDeleted;
    private RoaringPositionBitmap deletedPositions;
    private StructType equalityColumns;
    private List<EqualityDeleteSet> equalitySets = List.of();
    private boolean requireFileColumns = false;
    private AutoCloseable onClose;
    private Function<FileNotFoundException, ? extends IOException> onMissingFile;
    private String nameMappingJson;
    private org.apache.spark.sql.sources.Filter[] skipFilters;
    private ParquetReadConf.Copies confCopies;
    private String tableName;
    private final Map<String, Object> constants = new LinkedHashMap<>();

    private Builder(String location) {
      if (location == null || location.isEmpty()) {
        throw new IllegalArgumentException("Invalid data file location: " + location);
      }
      this.location = location;
    }

    /** Reads the row groups whose midpoint is in [start, start + length); default whole file. */
    public Builder split(long splitStart, long splitLength) {
      if (splitStart < 0 || splitLength < 0) {
        throw new IllegalArgumentException(
            "Invalid split: start " + splitStart + ", length " + splitLength);
      }
      this.start = splitStart;
      this.length = splitLength;
      return this;
    }

    /**
     * The whole file's length in bytes, when known (a data file's manifest entry): the file is then
     * opened without asking the file system for its length (a HEAD request per file on an object
     * store). A wrong length costs that request back, nothing else. Default: unknown.
     */
    public Builder fileLength(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("Invalid length of data file " + location + ": " + bytes);
      }
      this.fileLength = bytes;
      return this;
    }

    /** As {@link #fileLength}, or unknown (the default) when {@code bytes} is negative. */
    public Builder fileLengthIfKnown(long bytes) {
      return bytes < 0 ? this : fileLength(bytes);
    }

    /** The Spark schema to return: file columns (by "parquet.field.id") and metadata columns. */
    public Builder project(StructType schema) {
      this.readSchema = schema;
      return this;
    }

    /**
     * The table's {@code schema.name-mapping.default} (JSON; null: none): a file without field ids
     * is read through it (see {@link NameMappedColumns}); {@code table} names the table in errors.
     */
    public Builder nameMapping(String json, String table) {
      this.nameMappingJson = json;
      this.tableName = table;
      return this;
    }

    /**
     * Filters Spark evaluates on the rows read (null: none), by table column name: Parquet skips
     * the row groups and pages where none can match (see {@link ParquetSkipFilters}); where row
     * positions count, they then come from Spark's row-index column. Never for a read that must
     * return every row of the file.
     */
    public Builder skipFilters(org.apache.spark.sql.sources.Filter[] filters) {
      this.skipFilters = filters;
      return this;
    }

    public Builder conf(Configuration hadoopConf) {
      this.conf = hadoopConf;
      return this;
    }

    /**
     * Configured copies of {@link #conf} shared with the other readers of the same read (null:
     * none); only where that configuration never changes.
     */
    Builder confCopies(ParquetReadConf.Copies copies) {
      this.confCopies = copies;
      return this;
    }

    /** As {@link #confCopies}, for readers outside this package: {@code shared} by the files of one read. */
    public Builder sharedConfigurations(SharedConfigurations shared) {
      this.confCopies = shared.copies;
      return this;
    }

    public Builder batchSize(int rows) {
      if (rows <= 0) {
        throw new IllegalArgumentException("Invalid batch size: " + rows);
      }
      this.batchSize = rows;
      return this;
    }

    /**
     * Rows whose position (from 0, file order) matches are left out; null means no deletes. Probed
     * once per row: prefer {@link #deletedPositions}, applied per batch.
     */
    public Builder filterDeleted(LongPredicate deleted) {
      this.isDeleted = deleted;
      return this;
    }

    /**
     * Rows whose position (from 0, file order) is in {@code positions} are left out, batch by batch
     * (one range query of the bitmap per batch); null or empty means none. Not copied: do not
     * change it while reading.
     */
    public Builder deletedPositions(RoaringPositionBitmap positions) {
      this.deletedPositions = positions;
      return this;
    }

    /**
     * Rows whose key columns are in one of {@code sets} are left out. {@code keyColumns}: the
     * table's fields (with field ids) holding every set's key columns, nested ones inside structs
     * pruned to them; those not requested by {@link #project} are read and then hidden.
     */
    Builder equalityDeletes(StructType keyColumns, List<EqualityDeleteSet> sets) {
      this.equalityColumns = keyColumns;
      this.equalitySets = sets == null ? List.of() : List.copyOf(sets);
      return this;
    }

    /** Fails on the first batch when a requested column is not in the file (instead of reading nulls). */
    public Builder requireFileColumns() {
      this.requireFileColumns = true;
      return this;
    }

    /** Closed with the reader, e.g. delete data held for it. */
    Builder onClose(AutoCloseable resource) {
      this.onClose = resource;
      return this;
    }

    /** Turns the error of a file that does not exist into the one to throw, e.g. naming the table. */
    Builder onMissingFile(Function<FileNotFoundException, ? extends IOException> translate) {
      this.onMissingFile = translate;
      return this;
    }

    /**
     * Returns {@code value} (Catalyst internal form, e.g. UTF8String, InternalRow) for the
     * requested column {@code name} instead of reading it, e.g. {@code _spec_id}.
     */
    public Builder constant(String name, Object value) {
      constants.put(name, value);
      return this;
    }

    public FloeParquetReader build() {
      if (readSchema == null) {
        throw new IllegalArgumentException("Missing read schema for " + location);
      }
      return new FloeParquetReader(this);
    }

    /** A row reader over the same batches; each returned row is reused by the next call. */
    public PartitionReader<InternalRow> buildRowReader() {
      return new ParquetRowReader(build(), readSchema);
    }
  }
}
