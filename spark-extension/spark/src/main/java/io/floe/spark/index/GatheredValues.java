package io.floe.spark.index;

import io.floe.format.index.FileValues;
import io.floe.format.index.IndexSegmentWriter;
import io.floe.spark.util.SparkValues;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * What one Spark task of an index build found in its data file: the distinct non-null values of
 * the index column and whether it holds a null. Integral columns (int, bigint, date, timestamp) are
 * gathered as a sorted {@code long[]} without boxing; other types as distinct Floe Java values
 * (binary as {@code byte[]}, since a ByteBuffer does not serialize).
 */
record GatheredValues(int task, long[] integral, Object[] values, boolean containsNull) implements Serializable {

  /** Adds this file's values to {@code writer}, covering {@code path}. */
  void addTo(IndexSegmentWriter writer, String path) {
    if (integral != null) {
      writer.addIntegral(path, integral, containsNull);
      return;
    }
    List<Object> distinct = new ArrayList<>(values.length);
    for (Object value : values) {
      distinct.add(SparkValues.fromSerializable(value));
    }
    FileValues file = FileValues.of(path, distinct);
    writer.add(containsNull ? file.withNulls() : file);
  }

  /** True when values of {@code type} are gathered as longs ({@link InternalRow#getInt}/getLong). */
  static boolean isIntegral(DataType type) {
    return isInt(type) || type instanceof LongType || type instanceof TimestampType
        || type instanceof TimestampNTZType;
  }

  private static boolean isInt(DataType type) {
    return type instanceof IntegerType || type instanceof DateType;
  }

  /** The task function: one partition (one data file) of single-column rows in, one result out. */
  static final class Gather implements Function2<Integer, Iterator<InternalRow>, Iterator<GatheredValues>> {
    private static final long serialVersionUID = 1L;
    private final DataType type;

    Gather(DataType type) {
      this.type = type;
    }

    @Override
    public Iterator<GatheredValues> call(Integer task, Iterator<InternalRow> rows) {
      GatheredValues gathered = isIntegral(type) ? integral(task, rows) : generic(task, rows);
      return Collections.singletonList(gathered).iterator();
    }

    private GatheredValues integral(int task, Iterator<InternalRow> rows) {
      boolean ints = isInt(type);
      boolean nulls = false;
      long[] values = new long[1024];
      int n = 0;
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        if (row.isNullAt(0)) {
          nulls = true;
          continue;
        }
        if (n == values.length) {
          values = Arrays.copyOf(values, n * 2);
        }
        values[n++] = ints ? row.getInt(0) : row.getLong(0);
      }
      Arrays.sort(values, 0, n);
      int distinct = 0;
      for (int i = 0; i < n; i++) {
        if (distinct == 0 || values[i] != values[distinct - 1]) {
          values[distinct++] = values[i];
        }
      }
      return new GatheredValues(task, Arrays.copyOf(values, distinct), null, nulls);
    }

    private GatheredValues generic(int task, Iterator<InternalRow> rows) {
      boolean nulls = false;
      Set<Object> distinct = new HashSet<>();
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        if (row.isNullAt(0)) {
          nulls = true;
        } else {
          // toJava copies out of the (reused) row: a new String, BigDecimal or byte[]
          distinct.add(SparkValues.toJava(type, row.get(0, type)));
        }
      }
      Object[] values = new Object[distinct.size()];
      int i = 0;
      for (Object value : distinct) {
        values[i++] = SparkValues.toSerializable(value);
      }
      return new GatheredValues(task, null, values, nulls);
    }
  }
}
