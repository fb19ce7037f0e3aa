package io.floe.spark.write;

import io.floe.spark.util.SparkValues;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Gathers, while one data file is written, the distinct values and whether there is a null of each
 * {@link IndexedColumns indexed column}. A column whose distinct values pass the limit is given up
 * for this file (its values are dropped: the file stays uncovered by that column's indexes).
 */
final class FileValueCollector {
  /**
   * What one file holds in one indexed column, as it travels to the driver: the values of an integral
   * column as one {@code long[]} (Java serialization writes it as a block, where boxed values cost a
   * header each), others as Floe's Java values with binary as {@code byte[]}, since ByteBuffer is not
   * serializable ({@link #javaValues} turns them back).
   */
  record Gathered(long[] integral, boolean asInt, ArrayList<Object> others, boolean containsNull)
      implements Serializable {
    static Gathered ofIntegral(long[] values, boolean asInt, boolean containsNull) {
      return new Gathered(values, asInt, null, containsNull);
    }

    static Gathered ofOthers(ArrayList<Object> values, boolean containsNull) {
      return new Gathered(null, false, values, containsNull);
    }

    /** The values as they travel (integral ones boxed as Integer or Long, binary as byte[]). */
    List<Object> values() {
      if (integral == null) {
        return others;
      }
      List<Object> out = new ArrayList<>(integral.length);
      for (long v : integral) {
        out.add(asInt ? (Object) (int) v : (Object) v);
      }
      return out;
    }

    /** The values in Floe's Java representation (binary as ByteBuffer). */
    List<Object> javaValues() {
      if (integral != null) {
        return values();
      }
      List<Object> out = new ArrayList<>(others.size());
      others.forEach(v -> out.add(SparkValues.fromSerializable(v)));
      return out;
    }
  }

  private final IndexedColumns columns;
  /** Per column of {@link #columns}, its distinct values so far; null once given up. */
  private final Distinct[] distinct;
  private final boolean[] nulls;

  FileValueCollector(IndexedColumns columns) {
    this.columns = columns;
    this.distinct = new Distinct[columns.columns().size()];
    this.nulls = new boolean[distinct.length];
    for (int i = 0; i < distinct.length; i++) {
      distinct[i] = Distinct.of(columns.columns().get(i).type());
    }
  }

  void add(InternalRow row) {
    List<IndexedColumns.Column> list = columns.columns();
    for (int i = 0; i < distinct.length; i++) {
      Distinct values = distinct[i];
      if (values == null) {
        continue; // given up
      }
      IndexedColumns.Column column = list.get(i);
      InternalRow holder = column.holder(row);
      int ordinal = column.ordinal();
      if (holder == null || holder.isNullAt(ordinal)) {
        nulls[i] = true;
      } else if (values.add(holder, ordinal) && values.size() > columns.maxDistinctValues()) {
        distinct[i] = null;
      }
    }
  }

  /** Per field id the file's values; a column given up is absent. */
  Map<Integer, Gathered> gathered() {
    Map<Integer, Gathered> out = new HashMap<>();
    for (int i = 0; i < distinct.length; i++) {
      if (distinct[i] != null) {
        out.put(columns.columns().get(i).fieldId(), distinct[i].gathered(nulls[i]));
      }
    }
    return out;
  }

  /**
   * One column's distinct non-null values, read from the row without converting each value: integral
   * columns (int, bigint, date, timestamps, and the small ints) in an unboxed set, strings as
   * Spark's UTF-8 strings (copied only when new, since a writer's rows reuse their buffers), other
   * types as Floe's Java values.
   */
  private abstract static class Distinct {
    static Distinct of(DataType type) {
      if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
        return new Integral(false, InternalRow::getLong);
      } else if (type instanceof IntegerType || type instanceof DateType) {
        return new Integral(true, InternalRow::getInt);
      } else if (type instanceof ShortType) {
        return new Integral(true, InternalRow::getShort);
      } else if (type instanceof ByteType) {
        return new Integral(true, InternalRow::getByte);
      } else if (type instanceof StringType) {
        return Values.strings();
      }
      return Values.of(type);
    }

    /** Adds the non-null value at {@code ordinal} of {@code holder}; true when it is new. */
    abstract boolean add(InternalRow holder, int ordinal);

    abstract int size();

    /** The values as they travel to the driver. */
    abstract Gathered gathered(boolean containsNull);
  }

  private static final class Integral extends Distinct {
    private final boolean asInt;
    private final LongReader reader;
    private final LongDistinctSet set = new LongDistinctSet();
    private boolean any;
    private long last;

    Integral(boolean asInt, LongReader reader) {
      this.asInt = asInt;
      this.reader = reader;
    }

    @Override
    boolean add(InternalRow holder, int ordinal) {
      long value = reader.read(holder, ordinal);
      if (any && value == last) {
        return false; // rows sorted or clustered by the column repeat it: no hashing
      }
      any = true;
      last = value;
      return set.add(value);
    }

    @Override
    int size() {
      return set.size();
    }

    @Override
    Gathered gathered(boolean containsNull) {
      long[] values = new long[set.size()];
      int[] next = {0};
      set.forEach(v -> values[next[0]++] = v);
      return Gathered.ofIntegral(values, asInt, containsNull);
    }
  }

  /** Reads a column of an integral type as a long. */
  @FunctionalInterface
  private interface LongReader {
    long read(InternalRow row, int ordinal);
  }

  /** Reads a column's value as an object. */
  @FunctionalInterface
  private interface ValueReader<T> {
    T read(InternalRow row, int ordinal);
  }

  /**
   * Values held as objects: {@code read} takes the row's value, {@code keep} the copy stored when it
   * is new (a writer's rows reuse their buffers), {@code travel} what is sent to the driver.
   */
  private static final class Values<T> extends Distinct {
    private final ValueReader<T> read;
    private final UnaryOperator<T> keep;
    private final Function<T, Object> travel;
    private final Set<T> set = new HashSet<>();

    Values(ValueReader<T> read, UnaryOperator<T> keep, Function<T, Object> travel) {
      this.read = read;
      this.keep = keep;
      this.travel = travel;
    }

    /** Strings as Spark's UTF-8 bytes (hashed without decoding), copied only when new. */
    static Values<UTF8String> strings() {
      // copy(), not clone(): clone() shares the bytes of a string spanning its whole array
      return new Values<>(InternalRow::getUTF8String, UTF8String::copy, UTF8String::toString);
    }

    /** Any other type as Floe's Java value (already a copy), binary travelling as bytes. */
    static Values<Object> of(DataType type) {
      return new Values<>((row, ordinal) -> SparkValues.toJava(type, row.get(ordinal, type)), v -> v,
          SparkValues::toSerializable);
    }

    @Override
    boolean add(InternalRow holder, int ordinal) {
      T value = read.read(holder, ordinal);
      return !set.contains(value) && set.add(keep.apply(value));
    }

    @Override
    int size() {
      return set.size();
    }

    @Override
    Gathered gathered(boolean containsNull) {
      ArrayList<Object> out = new ArrayList<>(set.size());
      set.forEach(v -> out.add(travel.apply(v)));
      return Gathered.ofOthers(out, containsNull);
    }
  }
}
