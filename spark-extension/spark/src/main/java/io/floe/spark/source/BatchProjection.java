package io.floe.spark.source;

import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.ColumnVectorUtils;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns each batch of file columns into a batch of the requested columns: file columns in the
 * requested order, plus {@code _file} (a constant), {@code _pos} (row positions) and caller
 * constants, with deleted rows left out.
 *
 * <p>Deleted rows are dropped without copying: the file columns are viewed through a row-id
 * mapping ({@link BatchRowIdVector}) that lists the live rows. A batch without deleted rows is
 * passed through as is; a batch whose rows are all deleted yields null.
 */
final class BatchProjection implements AutoCloseable {
  private static final int FILE_COLUMN = -1;
  private static final int POS_COLUMN = -2;
  private static final int CONSTANT = -3;

  private final StructType dataSchema;
  private final int[] sources; // per output column: index in dataSchema, or a kind above
  private final ColumnVector[] outputVectors;
  private final ColumnVector[] mappedVectors;
  private final int[] rowIds;
  private final OnHeapColumnVector positions;
  private final LongPredicate isDeleted;
  private ColumnarBatch passThrough;
  private ColumnarBatch filtered;
  private BatchRowIdVector[] views;

  BatchProjection(
      StructType readSchema, String location, Map<String, Object> constants, int capacity,
      LongPredicate isDeleted) {
    this.isDeleted = isDeleted;
    this.rowIds = new int[capacity];
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
    this.dataSchema = data;
    this.positions = pos;
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

  /** Whether row positions are needed: for {@code _pos} or to apply deletes. */
  boolean needsPositions() {
    return positions != null || isDeleted != null;
  }

  /**
   * Projects one batch whose first row is at {@code firstPosition} in the file. Returns null when
   * every row of the batch is deleted. The result is valid until the next call.
   */
  ColumnarBatch project(ColumnarBatch raw, long firstPosition) {
    bindTo(raw);
    int numRows = raw.numRows();
    int live = numRows;
    if (isDeleted != null) {
      live = 0;
      for (int i = 0; i < numRows; i++) {
        if (!isDeleted.test(firstPosition + i)) {
          rowIds[live++] = i;
        }
      }
    }
    if (live == 0 && numRows > 0) {
      return null;
    }
    boolean keepAll = live == numRows;
    if (positions != null) {
      for (int i = 0; i < live; i++) {
        positions.putLong(i, firstPosition + (keepAll ? i : rowIds[i]));
      }
    }
    if (keepAll) {
      passThrough.setNumRows(numRows);
      return passThrough;
    }
    for (BatchRowIdVector view : views) {
      view.setNumRows(live);
    }
    filtered.setNumRows(live);
    return filtered;
  }

  /** (Re)builds the output batches around the reader's vectors when they change. */
  private void bindTo(ColumnarBatch raw) {
    if (passThrough != null && sameVectors(raw)) {
      return;
    }
    views = new BatchRowIdVector[dataSchema.size()];
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] >= 0) {
        ColumnVector vector = raw.column(sources[i]);
        views[sources[i]] = new BatchRowIdVector(vector, rowIds);
        outputVectors[i] = vector;
        mappedVectors[i] = views[sources[i]];
      }
    }
    passThrough = new ColumnarBatch(outputVectors.clone());
    filtered = new ColumnarBatch(mappedVectors.clone());
  }

  private boolean sameVectors(ColumnarBatch raw) {
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] >= 0 && outputVectors[i] != raw.column(sources[i])) {
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
