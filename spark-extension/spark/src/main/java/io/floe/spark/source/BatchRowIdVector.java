package io.floe.spark.source;

import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.GeographyVal;
import org.apache.spark.unsafe.types.GeometryVal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A read-only view of another vector through a row-id mapping: row {@code i} of this vector is
 * row {@code rowIds[i]} of the delegate. Used to drop deleted rows from a batch without copying.
 *
 * <p>The mapping array is shared by all columns of a batch and rewritten for each batch. Struct
 * children (and the parts of intervals and variants) are viewed through the same mapping, as
 * they are indexed like their parent; array and map values come from the delegate unchanged, because their offsets already
 * point into the delegate's child data. Closing the view does not close the delegate, which
 * belongs to the Parquet reader.
 */
final class BatchRowIdVector extends ColumnVector {
  private final ColumnVector delegate;
  private final int[] rowIds;
  private final BatchRowIdVector[] children;
  private int numRows;

  BatchRowIdVector(ColumnVector delegate, int[] rowIds) {
    super(delegate.dataType());
    this.delegate = delegate;
    this.rowIds = rowIds;
    this.children = new BatchRowIdVector[childCount(delegate.dataType())];
  }

  private static int childCount(DataType type) {
    if (type instanceof StructType) {
      return ((StructType) type).size();
    } else if (type instanceof CalendarIntervalType) {
      return 3; // months, days, microseconds
    } else if (type instanceof VariantType) {
      return 2; // value, metadata
    }
    return 0;
  }

  /** Sets how many entries of the shared mapping are live for the current batch. */
  void setNumRows(int rows) {
    this.numRows = rows;
    for (BatchRowIdVector child : children) {
      if (child != null) {
        child.setNumRows(rows);
      }
    }
  }

  @Override
  public void close() {
    // the delegate is owned and closed by the reader that produced it
  }

  @Override
  public boolean hasNull() {
    return delegate.hasNull() && numNulls() > 0;
  }

  @Override
  public int numNulls() {
    if (!delegate.hasNull()) {
      return 0;
    }
    int nulls = 0;
    for (int i = 0; i < numRows; i++) {
      if (delegate.isNullAt(rowIds[i])) {
        nulls += 1;
      }
    }
    return nulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return delegate.isNullAt(rowIds[rowId]);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return delegate.getBoolean(rowIds[rowId]);
  }

  @Override
  public byte getByte(int rowId) {
    return delegate.getByte(rowIds[rowId]);
  }

  @Override
  public short getShort(int rowId) {
    return delegate.getShort(rowIds[rowId]);
  }

  @Override
  public int getInt(int rowId) {
    return delegate.getInt(rowIds[rowId]);
  }

  @Override
  public long getLong(int rowId) {
    return delegate.getLong(rowIds[rowId]);
  }

  @Override
  public float getFloat(int rowId) {
    return delegate.getFloat(rowIds[rowId]);
  }

  @Override
  public double getDouble(int rowId) {
    return delegate.getDouble(rowIds[rowId]);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return delegate.getArray(rowIds[rowId]);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return delegate.getMap(rowIds[rowId]);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return delegate.getDecimal(rowIds[rowId], precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return delegate.getUTF8String(rowIds[rowId]);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return delegate.getBinary(rowIds[rowId]);
  }

  @Override
  public GeographyVal getGeography(int rowId) {
    return delegate.getGeography(rowIds[rowId]);
  }

  @Override
  public GeometryVal getGeometry(int rowId) {
    return delegate.getGeometry(rowIds[rowId]);
  }

  @Override
  public CalendarInterval getInterval(int rowId) {
    return delegate.getInterval(rowIds[rowId]);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    if (children[ordinal] == null) {
      children[ordinal] = new BatchRowIdVector(delegate.getChild(ordinal), rowIds);
      children[ordinal].setNumRows(numRows);
    }
    return children[ordinal];
  }
}
