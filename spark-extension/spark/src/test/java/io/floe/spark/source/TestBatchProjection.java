package io.floe.spark.source;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import io.floe.format.deletes.RoaringPositionBitmap;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.Test;

/**
 * Deleted positions applied per batch: compacting the reader's vectors in place (values, nulls,
 * string offsets, struct children, array offsets, decimals of each storage width), the row-id
 * view used for vectors that cannot be compacted, {@code _pos}, and untouched batches without
 * deletes in range; rows dropped by the query's {@code =} and {@code IN} filters
 * ({@link BatchValueFilter}), with and without deletes, and filters it leaves to Spark.
 */
public class TestBatchProjection {
  private static final int CAPACITY = 32;
  private static final StructType STRUCT = new StructType()
      .add("a", DataTypes.IntegerType).add("b", DataTypes.StringType);
  private static final StructType SCHEMA = new StructType()
      .add("l", DataTypes.LongType)
      .add("s", DataTypes.StringType)
      .add("st", STRUCT)
      .add("arr", DataTypes.createArrayType(DataTypes.IntegerType))
      .add("d9", DataTypes.createDecimalType(7, 2))
      .add("d18", DataTypes.createDecimalType(15, 3))
      .add("d38", DataTypes.createDecimalType(30, 5))
      .add(new StructField(FloeParquetReader.POS_COLUMN, DataTypes.LongType, false,
          new MetadataBuilder().putBoolean(FloeParquetReader.METADATA_COLUMN_KEY, true).build()));

  /** A raw batch of {@code rows} rows as the Parquet reader would return it; row r holds values of r. */
  private static ColumnarBatch raw(int rows) {
    OnHeapColumnVector l = new OnHeapColumnVector(CAPACITY, DataTypes.LongType);
    OnHeapColumnVector s = new OnHeapColumnVector(CAPACITY, DataTypes.StringType);
    OnHeapColumnVector st = new OnHeapColumnVector(CAPACITY, STRUCT);
    OnHeapColumnVector arr = new OnHeapColumnVector(CAPACITY, DataTypes.createArrayType(DataTypes.IntegerType));
    OnHeapColumnVector d9 = new OnHeapColumnVector(CAPACITY, DataTypes.createDecimalType(7, 2));
    OnHeapColumnVector d18 = new OnHeapColumnVector(CAPACITY, DataTypes.createDecimalType(15, 3));
    OnHeapColumnVector d38 = new OnHeapColumnVector(CAPACITY, DataTypes.createDecimalType(30, 5));
    int elements = 0;
    for (int r = 0; r < rows; r++) {
      if (r % 4 == 3) {
        l.putNull(r);
      } else {
        l.putLong(r, r * 10L);
      }
      s.putByteArray(r, ("s" + r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      if (r % 5 == 4) {
        st.putNull(r);
      } else {
        st.getChild(0).putInt(r, r);
        st.getChild(1).putByteArray(r, ("b" + r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      arr.putArray(r, elements, r % 3);
      for (int i = 0; i < r % 3; i++) {
        arr.arrayData().putInt(elements++, r * 100 + i);
      }
      d9.putDecimal(r, Decimal.apply(d9(r), 7, 2), 7);
      d18.putDecimal(r, Decimal.apply(d18(r), 15, 3), 15);
      d38.putDecimal(r, Decimal.apply(d38(r), 30, 5), 30);
    }
    ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {l, s, st, arr, d9, d18, d38});
    batch.setNumRows(rows);
    return batch;
  }

  private static BigDecimal d9(int r) {
    return new BigDecimal(r + ".25");
  }

  private static BigDecimal d18(int r) {
    return new BigDecimal(r * 1000L + ".500");
  }

  private static BigDecimal d38(int r) {
    return new BigDecimal(r + "0000000000000.12345");
  }

  /** The values of row {@code r} of the raw batch, as the projection must return them. */
  private static List<Object> expected(long position) {
    int r = (int) position;
    List<Object> row = new ArrayList<>();
    row.add(r % 4 == 3 ? null : r * 10L);
    row.add("s" + r);
    row.add(r % 5 == 4 ? null : List.of(r, "b" + r));
    List<Integer> items = new ArrayList<>();
    for (int i = 0; i < r % 3; i++) {
      items.add(r * 100 + i);
    }
    row.add(items);
    row.add(d9(r));
    row.add(d18(r));
    row.add(d38(r));
    row.add(position);
    return row;
  }

  private static List<List<Object>> rows(ColumnarBatch batch) {
    List<List<Object>> out = new ArrayList<>();
    for (int i = 0; i < batch.numRows(); i++) {
      InternalRow row = batch.getRow(i);
      List<Object> values = new ArrayList<>();
      values.add(row.isNullAt(0) ? null : row.getLong(0));
      values.add(row.getUTF8String(1).toString());
      values.add(row.isNullAt(2) ? null
          : List.of(row.getStruct(2, 2).getInt(0), row.getStruct(2, 2).getUTF8String(1).toString()));
      List<Integer> items = new ArrayList<>();
      for (int k = 0; k < row.getArray(3).numElements(); k++) {
        items.add(row.getArray(3).getInt(k));
      }
      values.add(items);
      values.add(row.getDecimal(4, 7, 2).toJavaBigDecimal());
      values.add(row.getDecimal(5, 15, 3).toJavaBigDecimal());
      values.add(row.getDecimal(6, 30, 5).toJavaBigDecimal());
      values.add(row.getLong(7));
      out.add(values);
    }
    return out;
  }

  /** The rows of a raw batch of {@code rows} rows at positions 0.., without the deleted ones. */
  private static List<List<Object>> expectedRows(int rows, RoaringPositionBitmap deleted) {
    List<List<Object>> out = new ArrayList<>();
    for (long p = 0; p < rows; p++) {
      if (!deleted.contains(p)) {
        out.add(expected(p));
      }
    }
    return out;
  }

  private static BatchProjection projection(RoaringPositionBitmap deleted) {
    return new BatchProjection(SCHEMA, "file:/data.parquet", Map.of(), CAPACITY, deleted, null, null, List.of(), null);
  }

  private static RoaringPositionBitmap positions(long... deleted) {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    for (long p : deleted) {
      bitmap.add(p);
    }
    return bitmap;
  }

  /** The raw batch with column {@code readOnly} (or none, -1) not writable. */
  private static ColumnarBatch raw(int rows, int readOnly) {
    ColumnarBatch writable = raw(rows);
    ColumnVector[] columns = new ColumnVector[writable.numCols()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = i == readOnly ? new ReadOnly(writable.column(i)) : writable.column(i);
    }
    ColumnarBatch batch = new ColumnarBatch(columns);
    batch.setNumRows(rows);
    return batch;
  }

  @Test
  public void compactsLiveRowsInPlace() {
    // sparse (moved run by run) and dense (row by row) deletes
    for (RoaringPositionBitmap deleted : List.of(positions(7), positions(0, 19), positions(0, 1, 2, 5, 9, 10, 11, 19),
        positions(1, 3, 5, 7, 9, 11, 13, 15, 17, 19))) {
      ColumnarBatch raw = raw(20, -1);
      ColumnarBatch out = projection(deleted).project(raw, 0);
      assertEquals(deleted.toString(), expectedRows(20, deleted), rows(out));
      assertSame("compacted in the reader's own vectors", raw.column(0), out.column(0));
    }
  }

  @Test
  public void viewsVectorsThatCannotBeCompacted() {
    for (RoaringPositionBitmap deleted : List.of(positions(7), positions(3, 4, 7, 19))) {
      ColumnarBatch raw = raw(20, 1);
      ColumnarBatch out = projection(deleted).project(raw, 0);
      assertEquals(expectedRows(20, deleted), rows(out));
      assertEquals(BatchRowIdVector.class, out.column(0).getClass());
    }
  }

  @Test
  public void batchesWithoutDeletesInRangePassThrough() {
    RoaringPositionBitmap deleted = new RoaringPositionBitmap();
    deleted.add(5);
    deleted.add(1000);
    BatchProjection projection = projection(deleted);
    ColumnarBatch raw = raw(20);
    ColumnarBatch out = projection.project(raw, 100); // positions 100..119: none deleted
    assertEquals(20, out.numRows());
    assertSame(raw.column(1), out.column(1));
    List<List<Object>> rows = rows(out);
    for (int i = 0; i < 20; i++) {
      List<Object> want = expected(i);
      want.set(7, 100L + i);
      assertEquals(want, rows.get(i));
    }
  }

  @Test
  public void positionsFollowTheFileAcrossBatches() {
    RoaringPositionBitmap deleted = new RoaringPositionBitmap();
    deleted.addRange(40, 60); // the whole second batch, and rows of the first and third
    deleted.add(39);
    deleted.add(60);
    BatchProjection projection = projection(deleted);
    ColumnarBatch first = projection.project(raw(20), 20);
    assertEquals(19, first.numRows());
    assertEquals(38L, first.getRow(18).getLong(7));
    assertNull(projection.project(raw(20), 40));
    ColumnarBatch third = projection.project(raw(20), 60);
    assertEquals(19, third.numRows());
    long[] positions = new long[19];
    for (int i = 0; i < 19; i++) {
      positions[i] = third.getRow(i).getLong(7);
      assertEquals("s" + (i + 1), third.getRow(i).getUTF8String(1).toString());
    }
    long[] want = new long[19];
    for (int i = 0; i < 19; i++) {
      want[i] = 61 + i;
    }
    assertArrayEquals(want, positions);
  }

  private static BatchProjection filtering(RoaringPositionBitmap deleted, org.apache.spark.sql.sources.Filter... filters) {
    return new BatchProjection(SCHEMA, "file:/data.parquet", Map.of(), CAPACITY, deleted, null, null, List.of(),
        filters);
  }

  /** The rows of a raw batch of {@code rows} rows at positions 0.. whose positions are listed. */
  private static List<List<Object>> expectedAt(long... positions) {
    List<List<Object>> out = new ArrayList<>();
    for (long p : positions) {
      out.add(expected(p));
    }
    return out;
  }

  @Test
  public void dropsRowsThatFailEqualityAndInFilters() {
    // l = r * 10, null when r % 4 == 3; s = "s" + r
    org.apache.spark.sql.sources.Filter in = new org.apache.spark.sql.sources.In("l",
        new Object[] {0L, 50L, 70L, 120L, 999L, null});
    ColumnarBatch out = filtering(null, in).project(raw(20), 0);
    assertEquals("0, 50 and 120 match; 70 is row 7, whose l is null", expectedAt(0, 5, 12), rows(out));

    org.apache.spark.sql.sources.Filter both = new org.apache.spark.sql.sources.And(
        new org.apache.spark.sql.sources.In("l", new Object[] {10, 20, 40}), // integer literals on a long column
        new org.apache.spark.sql.sources.EqualTo("s", "s2"));
    assertEquals(expectedAt(2), rows(filtering(null, both).project(raw(20), 0)));

    org.apache.spark.sql.sources.Filter nullSafe = new org.apache.spark.sql.sources.EqualNullSafe("l", 0L);
    assertEquals(expectedAt(0), rows(filtering(null, nullSafe).project(raw(20), 0)));

    assertNull("a batch without a match is skipped",
        filtering(null, new org.apache.spark.sql.sources.EqualTo("s", "s99")).project(raw(20), 0));
    String longLiteral = "s3" + "x".repeat(1 << 20); // no length table of a megabyte
    assertEquals(expectedAt(3), rows(filtering(null,
        new org.apache.spark.sql.sources.In("s", new Object[] {longLiteral, "s3"})).project(raw(20), 0)));
    assertNull("IN (NULL) matches nothing",
        filtering(null, new org.apache.spark.sql.sources.In("l", new Object[] {null})).project(raw(20), 0));
  }

  @Test
  public void keepsEveryRowForFiltersItCannotDecide() {
    List<org.apache.spark.sql.sources.Filter> undecided = List.of(
        new org.apache.spark.sql.sources.Or(new org.apache.spark.sql.sources.EqualTo("l", 0L),
            new org.apache.spark.sql.sources.EqualTo("s", "s1")),
        new org.apache.spark.sql.sources.Not(new org.apache.spark.sql.sources.EqualTo("l", 0L)),
        new org.apache.spark.sql.sources.GreaterThan("l", 50L),
        new org.apache.spark.sql.sources.EqualTo("l", "10"), // a literal of another class
        new org.apache.spark.sql.sources.EqualTo("d9", new BigDecimal("1.25")), // a decimal column
        new org.apache.spark.sql.sources.EqualTo("st.a", 1), // a nested field
        new org.apache.spark.sql.sources.EqualTo("s", "s1\uFFFD"), // maybe invalid UTF-8 bytes
        new org.apache.spark.sql.sources.EqualTo("missing", 1L),
        new org.apache.spark.sql.sources.EqualNullSafe("l", null),
        new org.apache.spark.sql.sources.In("l", new Object[BatchValueFilter.MAX_VALUES_PER_FILTER + 1]));
    for (org.apache.spark.sql.sources.Filter filter : undecided) {
      ColumnarBatch raw = raw(20);
      ColumnarBatch out = filtering(null, filter).project(raw, 0);
      assertEquals(filter.toString(), 20, out.numRows());
      assertSame(filter.toString(), raw.column(1), out.column(1));
    }
  }

  @Test
  public void aNestedFieldNeverStandsForATopLevelColumnOfTheSameDottedName() {
    StructType schema = new StructType().add("a.b", DataTypes.LongType).add("a", new StructType().add("b",
        DataTypes.LongType));
    OnHeapColumnVector dotted = new OnHeapColumnVector(CAPACITY, DataTypes.LongType);
    OnHeapColumnVector struct = new OnHeapColumnVector(CAPACITY, schema.fields()[1].dataType());
    for (int r = 0; r < 4; r++) {
      dotted.putLong(r, r);
      struct.getChild(0).putLong(r, 10 + r);
    }
    ColumnarBatch raw = new ColumnarBatch(new ColumnVector[] {dotted, struct});
    raw.setNumRows(4);
    // Spark names the struct's field "a.b" and the top-level column "`a.b`"
    BatchProjection nested = new BatchProjection(schema, "file:/data.parquet", Map.of(), CAPACITY, null, null, null,
        List.of(), new org.apache.spark.sql.sources.Filter[] {new org.apache.spark.sql.sources.EqualTo("a.b", 11L)});
    assertEquals("left to Spark", 4, nested.project(raw, 0).numRows());
    BatchProjection topLevel = new BatchProjection(schema, "file:/data.parquet", Map.of(), CAPACITY, null, null, null,
        List.of(), new org.apache.spark.sql.sources.Filter[] {new org.apache.spark.sql.sources.EqualTo("`a.b`", 2L)});
    ColumnarBatch out = topLevel.project(raw, 0);
    assertEquals(1, out.numRows());
    assertEquals(2L, out.getRow(0).getLong(0));
  }

  @Test
  public void filtersWithDeletesAndKeepsPositions() {
    org.apache.spark.sql.sources.Filter in = new org.apache.spark.sql.sources.In("l",
        new Object[] {0L, 20L, 50L, 120L, 160L});
    BatchProjection projection = filtering(positions(5, 16), in);
    assertEquals("rows 5 and 16 deleted; 0, 2 and 12 match", expectedAt(0, 2, 12),
        rows(projection.project(raw(20), 0)));
    ColumnarBatch later = filtering(positions(21), in).project(raw(20), 20); // positions 20..39
    List<List<Object>> rows = rows(later);
    assertEquals(5, rows.size()); // rows 0, 2, 5, 12 and 16 of the batch; position 21 (row 1) is deleted
    long[] positions = new long[rows.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = (Long) rows.get(i).get(7);
    }
    assertArrayEquals(new long[] {20, 22, 25, 32, 36}, positions);
  }

  /** A vector that is not writable, so the projection must view it instead of compacting. */
  private static final class ReadOnly extends ColumnVector {
    private final ColumnVector delegate;

    ReadOnly(ColumnVector delegate) {
      super(delegate.dataType());
      this.delegate = delegate;
    }

    @Override
    public void close() {
    }

    @Override
    public boolean hasNull() {
      return delegate.hasNull();
    }

    @Override
    public int numNulls() {
      return delegate.numNulls();
    }

    @Override
    public boolean isNullAt(int rowId) {
      return delegate.isNullAt(rowId);
    }

    @Override
    public boolean getBoolean(int rowId) {
      return delegate.getBoolean(rowId);
    }

    @Override
    public byte getByte(int rowId) {
      return delegate.getByte(rowId);
    }

    @Override
    public short getShort(int rowId) {
      return delegate.getShort(rowId);
    }

    @Override
    public int getInt(int rowId) {
      return delegate.getInt(rowId);
    }

    @Override
    public long getLong(int rowId) {
      return delegate.getLong(rowId);
    }

    @Override
    public float getFloat(int rowId) {
      return delegate.getFloat(rowId);
    }

    @Override
    public double getDouble(int rowId) {
      return delegate.getDouble(rowId);
    }

    @Override
    public ColumnarArray getArray(int rowId) {
      return delegate.getArray(rowId);
    }

    @Override
    public ColumnarMap getMap(int rowId) {
      return delegate.getMap(rowId);
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      return delegate.getDecimal(rowId, precision, scale);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      return delegate.getUTF8String(rowId);
    }

    @Override
    public byte[] getBinary(int rowId) {
      return delegate.getBinary(rowId);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      return delegate.getChild(ordinal);
    }
  }
}
