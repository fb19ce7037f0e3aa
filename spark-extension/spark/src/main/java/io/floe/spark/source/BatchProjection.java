package io.floe.spark.source;

import io.floe.format.deletes.RoaringPositionBitmap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.ColumnVectorUtils;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns each batch of file columns into a batch of the requested columns: file columns in the
 * requested order, plus {@code _file} (a constant), {@code _pos} (row positions) and caller
 * constants, with deleted rows left out.
 *
 * <p>Deletes are applied per batch, not probed per row: for a batch of rows [start, start + n),
 * the deleted positions in that range come from a cursor over the file's position bitmap, which
 * decodes its positions in blocks as the batches advance, and the live rows are the runs of rows
 * between them (or, for dense deletes, a row list built without branches). A batch without
 * deleted positions costs one comparison and is passed through as is (no copy, no per-row work).
 * Equality deletes then hash the batch's key columns once per column and drop the rows found in
 * their sets. A batch whose rows are all deleted yields null.
 *
 * <p>A batch with deleted rows is compacted in place: the live rows of each requested column are
 * moved up in the Parquet reader's own vectors (which it resets before the next batch), from the
 * first deleted row on; strings, binaries, arrays and maps move only their offsets and lengths,
 * dictionary-encoded columns only their dictionary ids, structs their children. Consumers then
 * read plain vectors at full speed, as from a batch without deletes. Vectors that cannot be
 * compacted (not writable, or of a type not handled) are instead viewed through a row-id mapping
 * ({@link BatchRowIdVector}) that lists the live rows, without copying.
 *
 * <p>Equality columns the query did not request are read too, then hidden: appended after the
 * requested columns, or as extra trailing children of a requested struct (see
 * {@link EqualityDeleteColumns}).
 */
final class BatchProjection implements AutoCloseable {
  private static final int FILE_COLUMN = -1;
  private static final int POS_COLUMN = -2;
  private static final int CONSTANT = -3;
  /** Below this many live rows per run on average, compaction moves row by row. */
  private static final int MIN_AVERAGE_RUN = 16;

  private final StructType dataSchema;
  private final int[] sources; // per output column: index in dataSchema, or a kind above
  private final DataType[] prunedTypes; // per dataSchema column: the requested type when the read one is wider
  private final ColumnVector[] outputVectors;
  private final ColumnVector[] mappedVectors;
  private final int[] rowIds;
  private final int[] deletedOffsets;
  private final byte[] deletedMarks;
  private final int[] runSource; // live rows as runs: source row, target row, length
  private final int[] runTarget;
  private final int[] runLength;
  private final OnHeapColumnVector positions;
  private final RoaringPositionBitmap deletedPositions;
  private final RoaringPositionBitmap.Cursor deletedCursor;
  private final LongPredicate isDeleted;
  private final EqualityDeleteFilter equalityDeletes;
  private final BatchValueFilter valueFilter;
  private ColumnVector[] boundVectors;
  private boolean compactable; // every requested file column can be compacted in place
  private ColumnarBatch passThrough;
  private ColumnarBatch filtered;
  private BatchRowIdVector[] views;

  BatchProjection(
      StructType readSchema, String location, Map<String, Object> constants, int capacity,
      LongPredicate isDeleted) {
    this(readSchema, location, constants, capacity, null, isDeleted, null, List.of(), null);
  }

  /**
   * {@code deletedPositions}: the file's deleted row positions (null: none);
   * {@code isDeleted}: more deleted positions, probed per row (null: none);
   * {@code equalityColumns} and {@code equalitySets}: the key columns (with field ids, nested ones in
   * pruned structs) and the sets of the equality deletes that apply (null / empty: none);
   * {@code filters}: the query's filters, which Spark still evaluates on the rows returned (null:
   * none): rows that certainly fail their {@code =} and {@code IN} terms are left out too (see
   * {@link BatchValueFilter}).
   */
  BatchProjection(
      StructType readSchema, String location, Map<String, Object> constants, int capacity,
      RoaringPositionBitmap deletedPositions, LongPredicate isDeleted, StructType equalityColumns,
      List<EqualityDeleteSet> equalitySets, org.apache.spark.sql.sources.Filter[] filters) {
    this.deletedPositions = deletedPositions != null && !deletedPositions.isEmpty() ? deletedPositions : null;
    this.isDeleted = isDeleted;
    this.rowIds = new int[capacity];
    this.deletedOffsets = this.deletedPositions != null ? new int[capacity] : null;
    this.deletedMarks = this.deletedPositions != null ? new byte[capacity] : null;
    this.deletedCursor = this.deletedPositions != null ? this.deletedPositions.cursor() : null;
    this.runSource = new int[capacity / 2 + 1];
    this.runTarget = new int[capacity / 2 + 1];
    this.runLength = new int[capacity / 2 + 1];
    StructField[] fields = readSchema.fields();
    this.sources = new int[fields.length];
    this.outputVectors = new ColumnVector[fields.length];
    this.mappedVectors = new ColumnVector[fields.length];
    StructType data = new StructType();
    OnHeapColumnVector pos = null;
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      String name = field.name();
      if (constants.containsKey(name)) {
        sources[i] = CONSTANT;
        outputVectors[i] = constant(field, constants.get(name), capacity);
      } else if (!field.metadata().contains(FloeParquetReader.METADATA_COLUMN_KEY)) {
        sources[i] = data.size();
        data = data.add(field);
      } else if (FloeParquetReader.FILE_COLUMN.equals(name)) {
        checkType(field, DataTypes.StringType);
        sources[i] = FILE_COLUMN;
        outputVectors[i] = constant(field, UTF8String.fromString(location), capacity);
      } else if (FloeParquetReader.POS_COLUMN.equals(name)) {
        checkType(field, DataTypes.LongType);
        sources[i] = POS_COLUMN;
        pos = pos != null ? pos : new OnHeapColumnVector(capacity, DataTypes.LongType);
        outputVectors[i] = pos;
      } else {
        throw new IllegalArgumentException(
            "Cannot read metadata column " + name + " from a data file: no constant given for it");
      }
      mappedVectors[i] = outputVectors[i];
    }
    boolean equality = equalitySets != null && !equalitySets.isEmpty();
    StructType read = equality ? EqualityDeleteColumns.merge(data, equalityColumns) : data;
    this.prunedTypes = new DataType[read.size()];
    for (int i = 0; i < data.size(); i++) {
      DataType requested = data.fields()[i].dataType();
      prunedTypes[i] = requested.equals(read.fields()[i].dataType()) ? null : requested;
    }
    this.dataSchema = read;
    this.positions = pos;
    this.equalityDeletes = equality ? new EqualityDeleteFilter(equalitySets, read, capacity) : null;
    this.valueFilter = BatchValueFilter.of(filters, data);
  }

  private static void checkType(StructField field, org.apache.spark.sql.types.DataType expected) {
    if (!field.dataType().equals(expected)) {
      throw new IllegalArgumentException(
          "Invalid type for metadata column " + field.name() + ": " + field.dataType().sql()
              + ", expected " + expected.sql());
    }
  }

  private static ConstantColumnVector constant(StructField field, Object value, int capacity) {
    return constant(field.dataType(), value, capacity);
  }

  private static ConstantColumnVector constant(org.apache.spark.sql.types.DataType type, Object value, int capacity) {
    ConstantColumnVector vector = new ConstantColumnVector(capacity, type);
    populate(vector, type, value, capacity);
    return vector;
  }

  /** Like {@link ColumnVectorUtils#populate}, also for struct values (e.g. {@code _partition}). */
  private static void populate(
      ConstantColumnVector vector, org.apache.spark.sql.types.DataType type, Object value, int capacity) {
    if (type instanceof StructType struct) {
      org.apache.spark.sql.catalyst.InternalRow row = (org.apache.spark.sql.catalyst.InternalRow) value;
      for (int i = 0; i < struct.fields().length; i++) {
        org.apache.spark.sql.types.DataType childType = struct.fields()[i].dataType();
        vector.setChild(i, constant(childType, row == null || row.isNullAt(i) ? null : row.get(i, childType), capacity));
      }
      if (value == null) {
        vector.setNull();
      } else {
        vector.setNotNull();
      }
    } else {
      ColumnVectorUtils.populate(vector, new GenericInternalRow(new Object[] {value}), 0);
    }
  }

  /** The columns to read from the file, in the order the Parquet reader returns them. */
  StructType dataSchema() {
    return dataSchema;
  }

  /** Whether row positions are needed: for {@code _pos} or to apply position deletes. */
  boolean needsPositions() {
    return positions != null || isDeleted != null || deletedPositions != null;
  }

  /**
   * Projects one batch whose first row is at {@code firstPosition} in the file. Returns null when
   * every row of the batch is deleted. The result is valid until the next call.
   *
   * <p>The live rows are kept either as runs of consecutive rows (source row, target row,
   * length), one per stretch between deleted rows, when deletes are sparse, or as a list of row
   * ids, built without branches, when they are dense (runs shorter than
   * {@value #MIN_AVERAGE_RUN} rows on average).
   */
  ColumnarBatch project(ColumnarBatch raw, long firstPosition) {
    return project(raw, firstPosition, null);
  }

  /**
   * Projects one batch whose rows' positions in the file are {@code rowIndexes} (increasing; rows
   * of pages Parquet skipped are missing). Returns null when every row of the batch is deleted.
   */
  ColumnarBatch project(ColumnarBatch raw, ColumnVector rowIndexes) {
    int numRows = raw.numRows();
    if (numRows == 0) {
      return project(raw, 0, null);
    }
    long first = rowIndexes.getLong(0);
    boolean consecutive = rowIndexes.getLong(numRows - 1) - first == numRows - 1;
    return project(raw, first, consecutive ? null : rowIndexes);
  }

  /** The position in the file of the batch's row {@code row}. */
  private static long position(long firstPosition, ColumnVector rowIndexes, int row) {
    return rowIndexes == null ? firstPosition + row : rowIndexes.getLong(row);
  }

  private ColumnarBatch project(ColumnarBatch raw, long firstPosition, ColumnVector rowIndexes) {
    bindTo(raw);
    int numRows = raw.numRows();
    int live = numRows;
    int runs = -1; // >= 0: the live rows are runs[0..runs)
    boolean listed = false; // the live rows are rowIds[0..live)
    if (deletedPositions != null && rowIndexes != null) {
      // rows of several stretches of the file: each position is probed
      int kept = 0;
      for (int row = 0; row < numRows; row++) {
        if (!deletedPositions.contains(rowIndexes.getLong(row))) {
          rowIds[kept++] = row;
        }
      }
      if (kept < numRows) {
        live = kept;
        listed = true;
      }
    } else if (deletedPositions != null) {
      int deleted = deletedCursor.offsetsInRange(firstPosition, numRows, deletedOffsets);
      if (deleted > 0) {
        live = numRows - deleted;
        if ((long) deleted * MIN_AVERAGE_RUN > numRows) {
          listAllBut(deletedOffsets, deleted, numRows);
          listed = true;
        } else {
          runs = runsBetween(deletedOffsets, deleted, numRows);
        }
      }
    }
    if ((isDeleted != null || equalityDeletes != null || valueFilter != null) && live > 0) {
      boolean identity = runs < 0 && !listed;
      if (runs >= 0) {
        rowIdsOf(runs);
      }
      if (isDeleted != null) {
        int kept = 0;
        for (int k = 0; k < live; k++) {
          int row = identity ? k : rowIds[k];
          if (!isDeleted.test(position(firstPosition, rowIndexes, row))) {
            rowIds[kept++] = row;
          }
        }
        identity = kept == numRows;
        live = kept;
      }
      if (equalityDeletes != null && live > 0) {
        int left = equalityDeletes.apply(live, rowIds, identity);
        if (left >= 0) {
          live = left;
          identity = false;
        }
      }
      if (valueFilter != null && live > 0) {
        int left = valueFilter.apply(live, rowIds, identity);
        if (left >= 0) {
          live = left;
          identity = false;
        }
      }
      runs = -1;
      listed = !identity;
    }
    if (live == 0 && numRows > 0) {
      return null;
    }
    if (runs < 0 && !listed) {
      if (positions != null) {
        for (int i = 0; i < numRows; i++) {
          positions.putLong(i, position(firstPosition, rowIndexes, i));
        }
      }
      passThrough.setNumRows(numRows);
      return passThrough;
    }
    if (positions != null) {
      if (listed) {
        for (int k = 0; k < live; k++) {
          positions.putLong(k, position(firstPosition, rowIndexes, rowIds[k]));
        }
      } else {
        for (int r = 0; r < runs; r++) {
          long from = firstPosition + runSource[r];
          int to = runTarget[r];
          for (int i = 0; i < runLength[r]; i++) {
            positions.putLong(to + i, from + i);
          }
        }
      }
    }
    if (compactable) {
      int from = 0; // rows before the first deleted one stay
      if (listed) {
        while (from < live && rowIds[from] == from) {
          from++;
        }
      }
      for (int i = 0; i < sources.length; i++) {
        if (sources[i] >= 0) {
          compact((WritableColumnVector) raw.column(sources[i]), runs, listed, from, live);
        }
      }
      passThrough.setNumRows(live);
      return passThrough;
    }
    if (!listed) {
      rowIdsOf(runs);
    }
    for (BatchRowIdVector view : views) {
      if (view != null) {
        view.setNumRows(live);
      }
    }
    filtered.setNumRows(live);
    return filtered;
  }

  /** Lists in {@code rowIds} the rows of [0, numRows) not among the {@code deleted} offsets, without branches. */
  private void listAllBut(int[] deleted, int count, int numRows) {
    byte[] marks = deletedMarks;
    Arrays.fill(marks, 0, numRows, (byte) 0);
    for (int j = 0; j < count; j++) {
      marks[deleted[j]] = 1;
    }
    int live = 0;
    for (int row = 0; row < numRows; row++) {
      rowIds[live] = row;
      live += 1 - marks[row];
    }
  }

  /** The runs of rows of [0, numRows) between the sorted {@code deleted} offsets; returns their count. */
  private int runsBetween(int[] deleted, int count, int numRows) {
    int runs = 0;
    int next = 0;
    int target = 0;
    for (int j = 0; j <= count; j++) {
      int end = j < count ? deleted[j] : numRows;
      if (end > next) {
        runSource[runs] = next;
        runTarget[runs] = target;
        runLength[runs] = end - next;
        target += end - next;
        runs++;
      }
      next = end + 1;
    }
    return runs;
  }

  /** Writes the rows of {@code runs} to {@code rowIds}. */
  private void rowIdsOf(int runs) {
    for (int r = 0; r < runs; r++) {
      int from = runSource[r];
      int to = runTarget[r];
      for (int i = 0; i < runLength[r]; i++) {
        rowIds[to + i] = from + i;
      }
    }
  }

  /** (Re)builds the output batches around the reader's vectors when they change. */
  private void bindTo(ColumnarBatch raw) {
    if (passThrough != null && sameVectors(raw)) {
      return;
    }
    boundVectors = new ColumnVector[dataSchema.size()];
    for (int j = 0; j < boundVectors.length; j++) {
      boundVectors[j] = raw.column(j);
    }
    views = new BatchRowIdVector[dataSchema.size()];
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] >= 0) {
        ColumnVector vector = raw.column(sources[i]);
        if (prunedTypes[sources[i]] != null) {
          vector = new EqualityDeleteColumns.PrunedStructVector(vector, (StructType) prunedTypes[sources[i]]);
        }
        views[sources[i]] = new BatchRowIdVector(vector, rowIds);
        outputVectors[i] = vector;
        mappedVectors[i] = views[sources[i]];
      }
    }
    passThrough = new ColumnarBatch(outputVectors.clone());
    filtered = new ColumnarBatch(mappedVectors.clone());
    compactable = true;
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] >= 0 && !canCompact(raw.column(sources[i]))) {
        compactable = false;
      }
    }
    if (valueFilter != null) {
      valueFilter.bind(raw);
    }
    if (equalityDeletes != null) {
      equalityDeletes.bind(raw);
    }
  }

  /** Whether {@link #compact} handles this vector (and its children). */
  private static boolean canCompact(ColumnVector vector) {
    if (!(vector instanceof WritableColumnVector)) {
      return false;
    }
    DataType type = vector.dataType();
    if (type instanceof StructType || type instanceof CalendarIntervalType || type instanceof VariantType) {
      int children = type instanceof StructType struct ? struct.size() : type instanceof VariantType ? 2 : 3;
      for (int c = 0; c < children; c++) {
        if (!canCompact(vector.getChild(c))) {
          return false;
        }
      }
      return true;
    }
    return type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof DateType || type instanceof YearMonthIntervalType
        || type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof DayTimeIntervalType || type instanceof FloatType || type instanceof DoubleType
        || type instanceof DecimalType || type instanceof StringType || type instanceof BinaryType
        || type instanceof ArrayType || type instanceof MapType;
  }

  // how compact() moves values of a flat column
  private static final int MOVE_INT = 0;
  private static final int MOVE_LONG = 1;
  private static final int MOVE_OFFSETS = 2; // strings, binaries, wide decimals, arrays, maps
  private static final int MOVE_DOUBLE = 3;
  private static final int MOVE_FLOAT = 4;
  private static final int MOVE_BOOLEAN = 5;
  private static final int MOVE_SHORT = 6;
  private static final int MOVE_BYTE = 7;

  private static int moveKind(DataType type) {
    // decimals as Spark's vectors store them: up to 9 digits in ints, up to 18 in longs, else bytes
    if (type instanceof IntegerType || type instanceof DateType || type instanceof YearMonthIntervalType
        || (type instanceof DecimalType d && DecimalType.is32BitDecimalType(d))) {
      return MOVE_INT;
    } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof DayTimeIntervalType
        || (type instanceof DecimalType d && DecimalType.is64BitDecimalType(d))) {
      return MOVE_LONG;
    } else if (type instanceof StringType || type instanceof BinaryType || type instanceof DecimalType
        || type instanceof ArrayType || type instanceof MapType) {
      return MOVE_OFFSETS;
    } else if (type instanceof DoubleType) {
      return MOVE_DOUBLE;
    } else if (type instanceof FloatType) {
      return MOVE_FLOAT;
    } else if (type instanceof BooleanType) {
      return MOVE_BOOLEAN;
    } else if (type instanceof ShortType) {
      return MOVE_SHORT;
    } else if (type instanceof ByteType) {
      return MOVE_BYTE;
    }
    throw new IllegalStateException("Cannot compact a vector of type " + type.sql());
  }

  /**
   * Moves the live rows up, from target row {@code from} to {@code live}: either run by run (rows
   * [source, source + length) to [target, target + length)) or, {@code byRow}, row by row (row
   * {@code rowIds[k]} to row k). Targets never exceed their sources and ascend, so no row is
   * overwritten before it moves. Moves values, null flags (null counts may stay high, which only
   * means "may have nulls"), dictionary ids instead of values when the column is
   * dictionary-encoded, offsets and lengths of variable-length values, and the children of structs.
   */
  private void compact(WritableColumnVector v, int runs, boolean byRow, int from, int live) {
    if (v.isAllNull()) {
      return; // a column missing from the file: null everywhere, and maybe no storage
    }
    DataType type = v.dataType();
    if (v.hasNull()) {
      moveNulls(v, runs, byRow, from, live);
    }
    if (type instanceof StructType || type instanceof CalendarIntervalType || type instanceof VariantType) {
      int children = type instanceof StructType struct ? struct.size() : type instanceof VariantType ? 2 : 3;
      for (int c = 0; c < children; c++) {
        compact(v.getChild(c), runs, byRow, from, live);
      }
    } else if (v.hasDictionary()) {
      moveValues(v.getDictionaryIds(), MOVE_INT, runs, byRow, from, live);
    } else {
      moveValues(v, moveKind(type), runs, byRow, from, live);
    }
  }

  private void moveNulls(WritableColumnVector v, int runs, boolean byRow, int from, int live) {
    if (byRow) {
      for (int k = from; k < live; k++) {
        if (v.isNullAt(rowIds[k])) {
          v.putNull(k);
        } else {
          v.putNotNull(k);
        }
      }
      return;
    }
    for (int r = 0; r < runs; r++) {
      int source = runSource[r];
      int target = runTarget[r];
      for (int i = 0; source != target && i < runLength[r]; i++) {
        if (v.isNullAt(source + i)) {
          v.putNull(target + i);
        } else {
          v.putNotNull(target + i);
        }
      }
    }
  }

  /** One loop per kind and shape, so that the type dispatch stays out of the loops. */
  private void moveValues(WritableColumnVector v, int kind, int runs, boolean byRow, int from, int live) {
    int[] ids = rowIds;
    if (byRow) {
      switch (kind) {
        case MOVE_INT:
          for (int k = from; k < live; k++) {
            v.putInt(k, v.getInt(ids[k]));
          }
          break;
        case MOVE_LONG:
          for (int k = from; k < live; k++) {
            v.putLong(k, v.getLong(ids[k]));
          }
          break;
        case MOVE_OFFSETS:
          for (int k = from; k < live; k++) {
            v.putArray(k, v.getArrayOffset(ids[k]), v.getArrayLength(ids[k]));
          }
          break;
        case MOVE_DOUBLE:
          for (int k = from; k < live; k++) {
            v.putDouble(k, v.getDouble(ids[k]));
          }
          break;
        case MOVE_FLOAT:
          for (int k = from; k < live; k++) {
            v.putFloat(k, v.getFloat(ids[k]));
          }
          break;
        case MOVE_BOOLEAN:
          for (int k = from; k < live; k++) {
            v.putBoolean(k, v.getBoolean(ids[k]));
          }
          break;
        case MOVE_SHORT:
          for (int k = from; k < live; k++) {
            v.putShort(k, v.getShort(ids[k]));
          }
          break;
        default:
          for (int k = from; k < live; k++) {
            v.putByte(k, v.getByte(ids[k]));
          }
      }
      return;
    }
    // run by run, element by element: measured faster than copying the values out and back in
    // bulk (which allocates and passes over them three times)
    for (int r = 0; r < runs; r++) {
      int source = runSource[r];
      int target = runTarget[r];
      int n = runLength[r];
      if (source == target) {
        continue;
      }
      switch (kind) {
        case MOVE_INT:
          for (int i = 0; i < n; i++) {
            v.putInt(target + i, v.getInt(source + i));
          }
          break;
        case MOVE_LONG:
          for (int i = 0; i < n; i++) {
            v.putLong(target + i, v.getLong(source + i));
          }
          break;
        case MOVE_OFFSETS:
          for (int i = 0; i < n; i++) {
            v.putArray(target + i, v.getArrayOffset(source + i), v.getArrayLength(source + i));
          }
          break;
        case MOVE_DOUBLE:
          for (int i = 0; i < n; i++) {
            v.putDouble(target + i, v.getDouble(source + i));
          }
          break;
        case MOVE_FLOAT:
          for (int i = 0; i < n; i++) {
            v.putFloat(target + i, v.getFloat(source + i));
          }
          break;
        case MOVE_BOOLEAN:
          for (int i = 0; i < n; i++) {
            v.putBoolean(target + i, v.getBoolean(source + i));
          }
          break;
        case MOVE_SHORT:
          for (int i = 0; i < n; i++) {
            v.putShort(target + i, v.getShort(source + i));
          }
          break;
        default:
          for (int i = 0; i < n; i++) {
            v.putByte(target + i, v.getByte(source + i));
          }
      }
    }
  }

  private boolean sameVectors(ColumnarBatch raw) {
    for (int j = 0; j < boundVectors.length; j++) {
      if (boundVectors[j] != raw.column(j)) {
        return false;
      }
    }
    return true;
  }

  /** Frees the vectors this projection owns; the file columns belong to the Parquet reader. */
  @Override
  public void close() {
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] < 0 && outputVectors[i] != null) {
        outputVectors[i].close();
        outputVectors[i] = null;
      }
    }
  }
}
