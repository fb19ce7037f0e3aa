package io.floe.spark.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of one or more equality delete files with the same equality field ids, as a hash set
 * keyed by those columns' values: a data row is deleted when every equality column equals the
 * delete row's (null equals null; floating-point values compare by their bits, NaN equals NaN and
 * -0.0 differs from 0.0, as Iceberg compares them).
 *
 * <p>Layout: the key columns are stored column-wise (a {@code long} per value for booleans,
 * integers, dates, timestamps, floating-point bits and decimals of up to 18 digits; an object for
 * strings, binaries and wider decimals) in an open-addressing table of row indexes with each row's
 * hash. Probing a batch hashes the key columns column by column, then looks each row up; a row is
 * compared value by value only when its hash matches a delete row's.
 */
final class EqualityDeleteSet {
  // value kinds: the first ones are stored as longs
  private static final int BOOLEAN = 0;
  private static final int BYTE = 1;
  private static final int SHORT = 2;
  private static final int INT = 3;
  private static final int LONG = 4;
  private static final int FLOAT = 5;
  private static final int DOUBLE = 6;
  private static final int SMALL_DECIMAL = 7;
  private static final int LAST_LONG_KIND = SMALL_DECIMAL;
  private static final int STRING = 8;
  private static final int BINARY = 9;
  private static final int DECIMAL = 10;
  private static final int NULL_HASH = 0x6b43a9b5;

  private final List<Integer> fieldIds;
  private final DataType[] types;
  private final int[] kinds;
  private int size = 0;
  private long[][] longs;
  private Object[][] objects;
  private boolean[][] nulls;
  private int[] rowHashes;
  private int[] table = new int[16]; // row index + 1; 0 is an empty slot
  private int mask = 15;

  /** An empty set over key columns of the given ids and Spark types (in {@code equality_ids} order). */
  EqualityDeleteSet(List<Integer> fieldIds, DataType[] types) {
    this.fieldIds = List.copyOf(fieldIds);
    this.types = types.clone();
    this.kinds = new int[types.length];
    for (int c = 0; c < types.length; c++) {
      kinds[c] = kindOf(types[c]);
    }
    allocate(16);
  }

  private static int kindOf(DataType type) {
    if (type instanceof BooleanType) {
      return BOOLEAN;
    } else if (type instanceof ByteType) {
      return BYTE;
    } else if (type instanceof ShortType) {
      return SHORT;
    } else if (type instanceof IntegerType || type instanceof DateType) {
      return INT;
    } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
      return LONG;
    } else if (type instanceof FloatType) {
      return FLOAT;
    } else if (type instanceof DoubleType) {
      return DOUBLE;
    } else if (type instanceof DecimalType decimal) {
      return decimal.precision() <= Decimal.MAX_LONG_DIGITS() ? SMALL_DECIMAL : DECIMAL;
    } else if (type instanceof StringType) {
      return STRING;
    } else if (type instanceof BinaryType) {
      return BINARY;
    }
    throw new IllegalArgumentException("Cannot compare equality delete values of type " + type.sql());
  }

  private void allocate(int capacity) {
    int columns = types.length;
    longs = new long[columns][];
    objects = new Object[columns][];
    nulls = new boolean[columns][capacity];
    for (int c = 0; c < columns; c++) {
      if (kinds[c] <= LAST_LONG_KIND) {
        longs[c] = new long[capacity];
      } else {
        objects[c] = new Object[capacity];
      }
    }
    rowHashes = new int[capacity];
  }

  List<Integer> fieldIds() {
    return fieldIds;
  }

  int size() {
    return size;
  }

  /**
   * Loads the rows of an equality delete file, reading the key columns by field id.
   * {@code keySchema} holds exactly the key fields (nested ones inside their pruned structs) with
   * the table's current types; a key column missing from the file is an error.
   */
  static EqualityDeleteSet load(String path, long fileLength, List<Integer> fieldIds, StructType keySchema,
      Configuration conf, int batchSize) {
    int[][] paths = new int[fieldIds.size()][];
    DataType[] types = new DataType[fieldIds.size()];
    for (int c = 0; c < paths.length; c++) {
      paths[c] = EqualityDeleteColumns.pathOf(keySchema, fieldIds.get(c));
      if (paths[c] == null) {
        throw new IllegalStateException("Missing equality field id " + fieldIds.get(c) + " in " + keySchema);
      }
      types[c] = EqualityDeleteColumns.fieldAt(keySchema, paths[c]).dataType();
    }
    EqualityDeleteSet set = new EqualityDeleteSet(fieldIds, types);
    try (FloeParquetReader reader = FloeParquetReader.read(path).fileLengthIfKnown(fileLength).project(keySchema)
        .conf(conf).batchSize(batchSize).requireFileColumns().build()) {
      Columns columns = new Columns(set.kinds, paths);
      while (reader.next()) {
        ColumnarBatch batch = reader.get();
        columns.bind(batch);
        for (int row = 0; row < batch.numRows(); row++) {
          set.add(columns, row);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read equality delete file " + path, e);
    }
    return set;
  }

  /** One set holding the rows of all {@code sets}, which have the same field ids and types. */
  static EqualityDeleteSet union(List<EqualityDeleteSet> sets) {
    EqualityDeleteSet first = sets.get(0);
    EqualityDeleteSet union = new EqualityDeleteSet(first.fieldIds, first.types);
    for (EqualityDeleteSet set : sets) {
      if (!set.fieldIds.equals(first.fieldIds) || !Arrays.equals(set.types, first.types)) {
        throw new IllegalArgumentException("Cannot merge equality delete sets over " + first.fieldIds + " and "
            + set.fieldIds);
      }
      for (int r = 0; r < set.size; r++) {
        union.addStored(set, r);
      }
    }
    return union;
  }

  private void add(Columns columns, int row) {
    int hash = 0;
    for (int c = 0; c < kinds.length; c++) {
      hash = combine(hash, columns.hash(c, row));
    }
    hash = finish(hash);
    if (find(columns, row, hash) >= 0) {
      return;
    }
    int r = newRow(hash);
    for (int c = 0; c < kinds.length; c++) {
      boolean isNull = columns.isNull(c, row);
      nulls[c][r] = isNull;
      if (!isNull) {
        if (kinds[c] <= LAST_LONG_KIND) {
          longs[c][r] = columns.longAt(c, row);
        } else {
          Object value = columns.objectAt(c, row);
          objects[c][r] = value instanceof UTF8String s ? s.copy() : value; // the vector's bytes are reused
        }
      }
    }
  }

  private void addStored(EqualityDeleteSet other, int row) {
    int hash = other.rowHashes[row];
    for (int slot = hash & mask; table[slot] != 0; slot = (slot + 1) & mask) {
      int r = table[slot] - 1;
      if (rowHashes[r] == hash && sameStored(r, other, row)) {
        return;
      }
    }
    int r = newRow(hash);
    for (int c = 0; c < kinds.length; c++) {
      nulls[c][r] = other.nulls[c][row];
      if (kinds[c] <= LAST_LONG_KIND) {
        longs[c][r] = other.longs[c][row];
      } else {
        objects[c][r] = other.objects[c][row];
      }
    }
  }

  private boolean sameStored(int r, EqualityDeleteSet other, int row) {
    for (int c = 0; c < kinds.length; c++) {
      if (nulls[c][r] || other.nulls[c][row]) {
        if (nulls[c][r] != other.nulls[c][row]) {
          return false;
        }
      } else if (kinds[c] <= LAST_LONG_KIND ? longs[c][r] != other.longs[c][row]
          : !objects[c][r].equals(other.objects[c][row])) {
        return false;
      }
    }
    return true;
  }

  /** Appends an empty row with {@code hash} to the storage and the table; returns its index. */
  private int newRow(int hash) {
    if (size == rowHashes.length) {
      grow();
    }
    if ((size + 1) * 2L > table.length) {
      rehash(table.length * 2);
    }
    int r = size++;
    rowHashes[r] = hash;
    int slot = hash & mask;
    while (table[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    table[slot] = r + 1;
    return r;
  }

  private void grow() {
    int capacity = rowHashes.length * 2;
    if (capacity < 0 || capacity > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("Too many equality delete rows: " + size);
    }
    for (int c = 0; c < kinds.length; c++) {
      nulls[c] = Arrays.copyOf(nulls[c], capacity);
      if (longs[c] != null) {
        longs[c] = Arrays.copyOf(longs[c], capacity);
      } else {
        objects[c] = Arrays.copyOf(objects[c], capacity);
      }
    }
    rowHashes = Arrays.copyOf(rowHashes, capacity);
  }

  private void rehash(int capacity) {
    table = new int[capacity];
    mask = capacity - 1;
    for (int r = 0; r < size; r++) {
      int slot = rowHashes[r] & mask;
      while (table[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      table[slot] = r + 1;
    }
  }

  /** The stored row equal to row {@code row} of {@code columns} (whose hash is {@code hash}), or -1. */
  private int find(Columns columns, int row, int hash) {
    for (int slot = hash & mask; table[slot] != 0; slot = (slot + 1) & mask) {
      int r = table[slot] - 1;
      if (rowHashes[r] == hash && sameRow(r, columns, row)) {
        return r;
      }
    }
    return -1;
  }

  private boolean sameRow(int r, Columns columns, int row) {
    for (int c = 0; c < kinds.length; c++) {
      boolean isNull = columns.isNull(c, row);
      if (nulls[c][r] || isNull) {
        if (nulls[c][r] != isNull) {
          return false;
        }
      } else if (kinds[c] <= LAST_LONG_KIND ? longs[c][r] != columns.longAt(c, row)
          : !objects[c][r].equals(columns.objectAt(c, row))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Removes from a batch's live rows those this set deletes. The live rows are {@code 0..n-1} when
   * {@code identity}, else {@code rowIds[0..n)}; {@code hashes} has room for {@code n}. Returns the
   * number of rows left, written to {@code rowIds} in order, or -1 when {@code identity} and no row
   * is deleted ({@code rowIds} then untouched).
   */
  int filter(Columns columns, int n, int[] rowIds, boolean identity, int[] hashes) {
    if (size == 0) {
      return identity ? -1 : n;
    }
    for (int c = 0; c < kinds.length; c++) {
      columns.hashColumn(c, n, rowIds, identity, hashes, c == 0);
    }
    int out = 0;
    boolean removed = false;
    for (int k = 0; k < n; k++) {
      int row = identity ? k : rowIds[k];
      int hash = finish(hashes[k]);
      if (find(columns, row, hash) >= 0) {
        if (identity && !removed) {
          for (int j = 0; j < k; j++) {
            rowIds[j] = j;
          }
        }
        removed = true;
      } else if (identity && !removed) {
        out++;
      } else {
        rowIds[out++] = row;
      }
    }
    return identity && !removed ? -1 : out;
  }

  private static int combine(int hash, int value) {
    return hash * 0x9E3779B1 + value;
  }

  private static int finish(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  private static int hashLong(long v) {
    v *= 0x9E3779B97F4A7C15L;
    return (int) (v ^ (v >>> 32));
  }

  /**
   * The key columns of a batch (data or delete file), found by ordinal paths. Values are read in
   * normalized form: a long for the long kinds, an object (UTF8String, ByteBuffer, Decimal) else.
   * A value under a null struct is null.
   */
  static final class Columns {
    private final int[] kinds;
    private final int[][] paths;
    private final ColumnVector[] leaves;
    private final ColumnVector[][] parents;
    private final int[] precision;
    private final int[] scale;

    private Columns(int[] kinds, int[][] paths) {
      this.kinds = kinds;
      this.paths = paths;
      this.leaves = new ColumnVector[paths.length];
      this.parents = new ColumnVector[paths.length][];
      this.precision = new int[paths.length];
      this.scale = new int[paths.length];
    }

    /** Finds the key vectors in {@code batch} (again after the reader replaced its vectors). */
    void bind(ColumnarBatch batch) {
      for (int c = 0; c < paths.length; c++) {
        int[] path = paths[c];
        ColumnVector vector = batch.column(path[0]);
        parents[c] = new ColumnVector[path.length - 1];
        for (int i = 1; i < path.length; i++) {
          parents[c][i - 1] = vector;
          vector = vector.getChild(path[i]);
        }
        leaves[c] = vector;
        if (vector.dataType() instanceof DecimalType decimal) {
          precision[c] = decimal.precision();
          scale[c] = decimal.scale();
        }
      }
    }

    boolean isNull(int c, int row) {
      for (ColumnVector parent : parents[c]) {
        if (parent.isNullAt(row)) {
          return true;
        }
      }
      return leaves[c].isNullAt(row);
    }

    long longAt(int c, int row) {
      ColumnVector v = leaves[c];
      switch (kinds[c]) {
        case BOOLEAN:
          return v.getBoolean(row) ? 1 : 0;
        case BYTE:
          return v.getByte(row);
        case SHORT:
          return v.getShort(row);
        case INT:
          return v.getInt(row);
        case LONG:
          return v.getLong(row);
        case FLOAT:
          return Float.floatToIntBits(v.getFloat(row));
        case DOUBLE:
          return Double.doubleToLongBits(v.getDouble(row));
        case SMALL_DECIMAL:
          return v.getDecimal(row, precision[c], scale[c]).toUnscaledLong();
        default:
          throw new IllegalStateException("Not a long kind: " + kinds[c]);
      }
    }

    Object objectAt(int c, int row) {
      ColumnVector v = leaves[c];
      switch (kinds[c]) {
        case STRING:
          return v.getUTF8String(row);
        case BINARY:
          return ByteBuffer.wrap(v.getBinary(row));
        case DECIMAL:
          return v.getDecimal(row, precision[c], scale[c]);
        default:
          throw new IllegalStateException("Not an object kind: " + kinds[c]);
      }
    }

    int hash(int c, int row) {
      if (isNull(c, row)) {
        return NULL_HASH;
      }
      return kinds[c] <= LAST_LONG_KIND ? hashLong(longAt(c, row)) : objectAt(c, row).hashCode();
    }

    /**
     * Folds column {@code c}'s value hashes of the live rows into {@code hashes} (first column:
     * overwrites). One loop per column, so that the type dispatch is hoisted out of the rows.
     */
    void hashColumn(int c, int n, int[] rowIds, boolean identity, int[] hashes, boolean first) {
      boolean mayBeNull = parents[c].length > 0 || leaves[c].hasNull();
      ColumnVector v = leaves[c];
      int kind = kinds[c];
      for (int k = 0; k < n; k++) {
        int row = identity ? k : rowIds[k];
        int h;
        if (mayBeNull && isNull(c, row)) {
          h = NULL_HASH;
        } else if (kind == LONG) {
          h = hashLong(v.getLong(row));
        } else if (kind == INT) {
          h = hashLong(v.getInt(row));
        } else if (kind <= LAST_LONG_KIND) {
          h = hashLong(longAt(c, row));
        } else {
          h = objectAt(c, row).hashCode();
        }
        hashes[k] = first ? h : combine(hashes[k], h);
      }
    }
  }

  /** Key columns for this set at the given ordinal paths of a batch. */
  Columns columns(int[][] paths) {
    return new Columns(kinds, paths);
  }
}
