package io.floe.spark.source;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.util.QuotingUtils;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The query's {@code =} and {@code IN} filters on top-level integer and string columns, checked on
 * each batch as the Parquet reader decodes it, so that rows that cannot match are dropped before
 * Spark turns them into rows and evaluates its own filter (for a long {@code IN} list, Spark
 * probes a set of boxed values per row). A lookup through an index reads whole files for a few
 * rows: most batches then hold no match and are skipped whole.
 *
 * <p>Only for dropping rows that certainly fail: Spark still evaluates every filter on the rows
 * kept. So a term is built only where its meaning is unambiguous: a row is dropped when its value
 * is null or not among the term's values (SQL's {@code =} and {@code IN} are then false or null,
 * and {@code <=>} with a non-null value false). Values are compared as longs (byte, short, int and
 * long columns, integral literals) or as UTF-8 bytes (strings of a collation with binary
 * equality). Any other filter, type, collation or literal class contributes no term; nor does a
 * filter under {@code OR} or {@code NOT}, or on a column the batch does not hold (a constant, a
 * nested field, matched by Spark's quoting of names), or a string literal holding U+FFFD (it may
 * stand for invalid UTF-8 bytes that Spark's own filter compares as they are).
 */
final class BatchValueFilter {
  /** Above this many values, an {@code IN} filter is left to Spark. */
  static final int MAX_VALUES_PER_FILTER = 1_000_000;

  private final Term[] terms;

  private BatchValueFilter(Term[] terms) {
    this.terms = terms;
  }

  /**
   * The filter of {@code filters} (top-level conjuncts, by table column name) over batches of
   * {@code dataSchema}'s columns in order; null when no filter gives a term.
   */
  static BatchValueFilter of(Filter[] filters, StructType dataSchema) {
    if (filters == null || filters.length == 0) {
      return null;
    }
    List<Term> terms = new ArrayList<>();
    for (Filter filter : filters) {
      collect(filter, dataSchema, terms);
    }
    return terms.isEmpty() ? null : new BatchValueFilter(terms.toArray(new Term[0]));
  }

  private static void collect(Filter filter, StructType schema, List<Term> out) {
    if (filter instanceof And and) {
      collect(and.left(), schema, out);
      collect(and.right(), schema, out);
    } else if (filter instanceof EqualTo eq) {
      add(schema, eq.attribute(), new Object[] {eq.value()}, out);
    } else if (filter instanceof EqualNullSafe eq && eq.value() != null) {
      add(schema, eq.attribute(), new Object[] {eq.value()}, out);
    } else if (filter instanceof In in) {
      add(schema, in.attribute(), in.values(), out);
    }
  }

  private static void add(StructType schema, String attribute, Object[] values, List<Term> out) {
    StructField[] fields = schema.fields();
    for (int ordinal = 0; ordinal < fields.length; ordinal++) {
      // Spark's filters quote a name part only when needed: a top-level column `a.b` is named
      // "`a.b`", and "a.b" is the field b of a struct a, which no top-level column stands for
      if (QuotingUtils.quoteIfNeeded(fields[ordinal].name()).equals(attribute)) {
        Term term = Term.of(ordinal, fields[ordinal].dataType(), values);
        if (term != null) {
          out.add(term);
        }
        return;
      }
    }
  }

  /** Finds the filtered columns in the reader's batch; called again when the reader's vectors change. */
  void bind(ColumnarBatch raw) {
    for (Term term : terms) {
      term.vector = raw.column(term.ordinal);
    }
  }

  /**
   * Drops the rows that fail a term from the live rows ({@code 0..n-1} when {@code identity}, else
   * {@code rowIds[0..n)}). Returns how many are left, in {@code rowIds}, or -1 when
   * {@code identity} and none was dropped.
   */
  int apply(int n, int[] rowIds, boolean identity) {
    int live = n;
    boolean all = identity;
    for (int t = 0; t < terms.length && live > 0; t++) {
      int kept = terms[t].filter(live, rowIds, all);
      if (!(all && kept == live)) {
        all = false;
      }
      live = kept;
    }
    return all ? -1 : live;
  }

  /** One column's allowed values: integers in an open-addressing set of longs, or strings. */
  private static final class Term {
    /** Strings of this many bytes or more turn the length check off. */
    private static final int MAX_CHECKED_LENGTH = 4096;
    private final int ordinal;
    private final int width; // bytes of an integer column's values
    private final long[] longSlots; // integer columns: the values, 0 for an empty slot
    private final boolean hasZero;
    private final int mask;
    private final Set<UTF8String> strings; // string columns
    private final boolean[] stringLengths; // string columns: the byte lengths of the values
    private ColumnVector vector;

    private Term(int ordinal, int width, long[] longSlots, boolean hasZero, Set<UTF8String> strings) {
      this.ordinal = ordinal;
      this.width = width;
      this.longSlots = longSlots;
      this.hasZero = hasZero;
      this.mask = longSlots != null ? longSlots.length - 1 : 0;
      this.strings = strings;
      int longest = -1;
      for (UTF8String value : strings != null ? strings : Set.<UTF8String>of()) {
        longest = Math.max(longest, value.numBytes());
      }
      // a literal of many bytes would make the length table as large: no length check then
      this.stringLengths = longest < MAX_CHECKED_LENGTH ? new boolean[longest + 1] : null;
      for (UTF8String value : strings != null && stringLengths != null ? strings : Set.<UTF8String>of()) {
        stringLengths[value.numBytes()] = true;
      }
    }

    /** The term of a column of {@code type} at {@code ordinal}; null when the type or a value is not handled. */
    static Term of(int ordinal, DataType type, Object[] values) {
      if (values.length > MAX_VALUES_PER_FILTER) {
        return null; // a set this large is left to Spark rather than built for every file
      }
      if (type instanceof LongType || type instanceof IntegerType || type instanceof ShortType
          || type instanceof ByteType) {
        List<Long> longs = new ArrayList<>();
        for (Object value : values) {
          if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            longs.add(((Number) value).longValue());
          } else if (value != null) {
            return null; // a literal of another class: leave the filter to Spark
          }
        }
        int capacity = Integer.highestOneBit(Math.max(4, longs.size() * 4 - 1)) << 1;
        long[] slots = new long[capacity];
        boolean zero = false;
        for (long v : longs) {
          if (v == 0) {
            zero = true;
          } else {
            int slot = hash(v) & (capacity - 1);
            while (slots[slot] != 0 && slots[slot] != v) {
              slot = (slot + 1) & (capacity - 1);
            }
            slots[slot] = v;
          }
        }
        return new Term(ordinal, type.defaultSize(), slots, zero, null);
      }
      if (type instanceof StringType string && string.supportsBinaryEquality() && !string.usesTrimCollation()) {
        Set<UTF8String> set = new HashSet<>();
        for (Object value : values) {
          if (value instanceof String s && s.indexOf('\uFFFD') < 0) {
            set.add(UTF8String.fromString(s));
          } else if (value != null) {
            // another class, or a literal that may have held invalid UTF-8 bytes (Spark's filter
            // compares the original bytes; the Java string holds U+FFFD in their place)
            return null;
          }
        }
        return new Term(ordinal, 0, null, false, set);
      }
      return null;
    }

    private static int hash(long v) {
      long h = v * 0x9E3779B97F4A7C15L;
      return (int) (h ^ (h >>> 32));
    }

    /** Keeps in {@code rowIds} the rows of the {@code n} live ones (as in {@link #apply}) that match; returns how many. */
    int filter(int n, int[] rowIds, boolean identity) {
      boolean nulls = vector.hasNull();
      int kept = 0;
      if (strings != null) {
        // a value's length is checked before its bytes are hashed (not for dictionary ids)
        WritableColumnVector plain = vector instanceof WritableColumnVector w && !w.hasDictionary() ? w : null;
        for (int k = 0; k < n; k++) {
          int row = identity ? k : rowIds[k];
          if (nulls && vector.isNullAt(row)) {
            continue;
          }
          if (plain != null && stringLengths != null) {
            int length = plain.getArrayLength(row);
            if (length >= stringLengths.length || !stringLengths[length]) {
              continue;
            }
          }
          if (strings.contains(vector.getUTF8String(row))) {
            rowIds[kept++] = row;
          }
        }
        return kept;
      }
      for (int k = 0; k < n; k++) {
        int row = identity ? k : rowIds[k];
        if (nulls && vector.isNullAt(row)) {
          continue;
        }
        long v = switch (width) {
          case 8 -> vector.getLong(row);
          case 4 -> vector.getInt(row);
          case 2 -> vector.getShort(row);
          default -> vector.getByte(row);
        };
        if (contains(v)) {
          rowIds[kept++] = row;
        }
      }
      return kept;
    }

    private boolean contains(long v) {
      if (v == 0) {
        return hasZero;
      }
      int slot = hash(v) & mask;
      while (true) {
        long s = longSlots[slot];
        if (s == v) {
          return true;
        }
        if (s == 0) {
          return false;
        }
        slot = (slot + 1) & mask;
      }
    }
  }
}
