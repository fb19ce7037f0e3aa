package io.floe.format.expr;

import static io.floe.format.expr.Expressions.and;
import static io.floe.format.expr.Expressions.equal;
import static io.floe.format.expr.Expressions.greaterThan;
import static io.floe.format.expr.Expressions.greaterThanOrEqual;
import static io.floe.format.expr.Expressions.in;
import static io.floe.format.expr.Expressions.isNaN;
import static io.floe.format.expr.Expressions.isNull;
import static io.floe.format.expr.Expressions.lessThan;
import static io.floe.format.expr.Expressions.lessThanOrEqual;
import static io.floe.format.expr.Expressions.not;
import static io.floe.format.expr.Expressions.notEqual;
import static io.floe.format.expr.Expressions.notIn;
import static io.floe.format.expr.Expressions.notNaN;
import static io.floe.format.expr.Expressions.notNull;
import static io.floe.format.expr.Expressions.notStartsWith;
import static io.floe.format.expr.Expressions.or;
import static io.floe.format.expr.Expressions.startsWith;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

public class TestInclusiveMetricsEvaluator {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()),
      Types.NestedField.optional(3, "f", Types.FloatType.get()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()),
      Types.NestedField.optional(5, "all_null", Types.IntegerType.get()),
      Types.NestedField.optional(6, "no_stats", Types.IntegerType.get()),
      Types.NestedField.optional(7, "st", Types.StructType.of(
          Types.NestedField.optional(8, "x", Types.IntegerType.get()))),
      Types.NestedField.optional(9, "tags", Types.ListType.ofOptional(10, Types.StringType.get())),
      Types.NestedField.optional(11, "l", Types.LongType.get()),
      Types.NestedField.optional(12, "dec", Types.DecimalType.of(9, 2)));

  /** Bounds written with truncation to 16 characters, the upper one incremented. */
  private static final String LOWER_S = "aaaaaaaaaaaaaaaa";
  private static final String UPPER_S = "azzzzzzzzzzzzzz{";

  private static final DataFile FILE = file(50,
      new Object[][] {
          {1, 50L, 0L, null, Types.LongType.get(), 30L, 79L},
          {2, 50L, 10L, null, Types.StringType.get(), LOWER_S, UPPER_S},
          {3, 50L, 0L, 5L, Types.FloatType.get(), 1.0f, 2.0f},
          // a double column promoted from float: 4-byte bounds
          {4, 50L, 0L, 0L, Types.FloatType.get(), 1.5f, 2.5f},
          {5, 50L, 50L, null, Types.IntegerType.get(), null, null},
          {8, 50L, 0L, null, Types.IntegerType.get(), 0, 9},
          {10, 100L, 0L, null, Types.StringType.get(), "a", "b"},
          // a long column promoted from int: 4-byte bounds
          {11, 50L, 0L, null, Types.IntegerType.get(), 100, 200},
          {12, 50L, 0L, null, Types.DecimalType.of(9, 2), new BigDecimal("1.00"), new BigDecimal("2.00")}});

  /** Each stat row: field id, value count, null count, NaN count, bound type, lower, upper. */
  private static DataFile file(long records, Object[][] stats) {
    Map<Integer, Long> values = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Long> nans = new HashMap<>();
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    for (Object[] s : stats) {
      int id = (Integer) s[0];
      put(values, id, s[1]);
      put(nulls, id, s[2]);
      put(nans, id, s[3]);
      put(lower, id, Conversions.toByteBuffer((Type) s[4], s[5]));
      put(upper, id, Conversions.toByteBuffer((Type) s[4], s[6]));
    }
    return DataFile.builder(PartitionSpec.unpartitioned()).withPath("file:/t/data/f.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(1024)
        .withMetrics(new Metrics(records, null, values, nulls, nans, lower, upper)).build();
  }

  @SuppressWarnings("unchecked")
  private static <V> void put(Map<Integer, V> map, int id, Object value) {
    if (value != null) {
      map.put(id, (V) value);
    }
  }

  private static boolean mightMatch(Expression filter) {
    return new InclusiveMetricsEvaluator(SCHEMA, filter).eval(FILE);
  }

  private static boolean mightMatch(Expression filter, DataFile file) {
    return new InclusiveMetricsEvaluator(SCHEMA, filter).eval(file);
  }

  @Test
  public void integerRanges() {
    assertFalse(mightMatch(lessThan("id", 30)));
    assertTrue(mightMatch(lessThan("id", 31)));
    assertFalse(mightMatch(lessThanOrEqual("id", 29)));
    assertTrue(mightMatch(lessThanOrEqual("id", 30)));
    assertFalse(mightMatch(greaterThan("id", 79)));
    assertTrue(mightMatch(greaterThan("id", 78)));
    assertFalse(mightMatch(greaterThanOrEqual("id", 80)));
    assertFalse(mightMatch(equal("id", 80)));
    assertTrue(mightMatch(equal("id", 79)));
    assertFalse(mightMatch(in("id", 1, 2, 100)));
    assertTrue(mightMatch(in("id", 1, 50)));
    assertTrue(mightMatch(notEqual("id", 30)));
    assertTrue(mightMatch(notIn("id", 30, 31)));
    assertFalse(mightMatch(isNull("id")));
    assertTrue(mightMatch(notNull("id")));
  }

  @Test
  public void notAndConnectives() {
    assertFalse(mightMatch(not(greaterThanOrEqual("id", 30))));
    assertTrue(mightMatch(not(lessThan("id", 30))));
    assertFalse(mightMatch(and(equal("id", 50), equal("id", 100))));
    assertTrue(mightMatch(or(equal("id", 50), equal("id", 100))));
    assertFalse(mightMatch(or(equal("id", 10), equal("dec", new BigDecimal("2.01")))));
  }

  @Test
  public void allNullColumn() {
    assertTrue(mightMatch(isNull("all_null")));
    assertFalse(mightMatch(notNull("all_null")));
    assertFalse(mightMatch(equal("all_null", 1)));
    assertFalse(mightMatch(notEqual("all_null", 1)));
    assertFalse(mightMatch(lessThan("all_null", 1)));
    assertFalse(mightMatch(greaterThan("all_null", 1)));
    assertFalse(mightMatch(in("all_null", 1, 2)));
    assertFalse(mightMatch(notIn("all_null", 1, 2)));
  }

  @Test
  public void missingStatsMightMatch() {
    assertTrue(mightMatch(equal("no_stats", 1)));
    assertTrue(mightMatch(isNull("no_stats")));
    assertTrue(mightMatch(notNull("no_stats")));
    assertTrue(mightMatch(lessThan("no_stats", Integer.MIN_VALUE + 1)));
    DataFile noMetrics = file(50, new Object[0][]);
    assertTrue(mightMatch(equal("id", -1), noMetrics));
    assertTrue(mightMatch(greaterThan("f", 1e30), noMetrics));
    // counts but no bounds
    DataFile countsOnly = file(50, new Object[][] {{1, 50L, 0L, null, Types.LongType.get(), null, null}});
    assertTrue(mightMatch(equal("id", -1), countsOnly));
    assertFalse(mightMatch(isNull("id"), countsOnly));
  }

  @Test
  public void emptyFileMatchesNothing() {
    assertFalse(mightMatch(Expressions.alwaysTrue(), file(0, new Object[0][])));
  }

  @Test
  public void nanRulesForFloatColumns() {
    // f has 5 NaN values, bounds [1.0, 2.0] exclude them
    assertTrue(mightMatch(isNaN("f")));
    assertTrue(mightMatch(notNaN("f")));
    assertTrue(mightMatch(greaterThan("f", 5.0)));  // NaN > 5 in Spark
    assertTrue(mightMatch(notEqual("f", 1.5)));
    assertFalse(mightMatch(lessThan("f", 1.0)));
    assertFalse(mightMatch(equal("f", 3.0)));
    assertFalse(mightMatch(in("f", 3.0, 4.0)));
    // a double literal against float bounds compares numerically
    assertTrue(mightMatch(lessThan("f", 1.0000001d)));
    assertFalse(mightMatch(lessThanOrEqual("f", 0.99999999d)));

    // d has no NaN and float-width bounds [1.5, 2.5]
    assertFalse(mightMatch(isNaN("d")));
    assertFalse(mightMatch(greaterThan("d", 2.5)));
    assertTrue(mightMatch(greaterThanOrEqual("d", 2.5)));
    assertFalse(mightMatch(lessThan("d", 1.5)));
    assertTrue(mightMatch(equal("d", 2.5)));

    DataFile onlyNaN = file(10, new Object[][] {{3, 10L, 0L, 10L, Types.FloatType.get(), null, null}});
    assertFalse(mightMatch(notNaN("f"), onlyNaN));
    assertFalse(mightMatch(lessThan("f", 1.0), onlyNaN));
    assertFalse(mightMatch(equal("f", 1.0), onlyNaN));
    assertFalse(mightMatch(isNull("f"), onlyNaN));
    assertTrue(mightMatch(isNaN("f"), onlyNaN));
    assertTrue(mightMatch(greaterThan("f", 1.0), onlyNaN));

    DataFile nullAndNaN = file(10, new Object[][] {{3, 10L, 4L, 6L, Types.FloatType.get(), null, null}});
    assertFalse(mightMatch(lessThan("f", 1.0), nullAndNaN));
    assertTrue(mightMatch(notNaN("f"), nullAndNaN));

    // NaN count unknown (pyiceberg writes none): NaN may be there
    DataFile unknownNaN = file(10, new Object[][] {{3, 10L, 0L, null, Types.FloatType.get(), 1.0f, 2.0f}});
    assertTrue(mightMatch(greaterThan("f", 5.0), unknownNaN));
    assertTrue(mightMatch(isNaN("f"), unknownNaN));
    assertFalse(mightMatch(lessThan("f", 1.0), unknownNaN));
  }

  @Test
  public void truncatedStringBounds() {
    assertTrue(mightMatch(equal("s", LOWER_S + "1")));
    assertTrue(mightMatch(equal("s", "a" + "z".repeat(20))));
    assertFalse(mightMatch(equal("s", "b")));
    assertFalse(mightMatch(equal("s", "a")));
    assertFalse(mightMatch(lessThan("s", LOWER_S)));
    assertTrue(mightMatch(lessThanOrEqual("s", LOWER_S)));
    assertFalse(mightMatch(greaterThanOrEqual("s", "b")));
    assertTrue(mightMatch(greaterThan("s", "a" + "z".repeat(30))));
    assertTrue(mightMatch(in("s", "0", "am")));
    assertFalse(mightMatch(in("s", "0", "b")));
  }

  @Test
  public void prefixesAgainstTruncatedBounds() {
    assertTrue(mightMatch(startsWith("s", "a")));
    assertTrue(mightMatch(startsWith("s", "am")));
    assertTrue(mightMatch(startsWith("s", "a" + "z".repeat(25))));
    assertTrue(mightMatch(startsWith("s", LOWER_S + "aaaa")));
    assertFalse(mightMatch(startsWith("s", "b")));
    assertFalse(mightMatch(startsWith("s", "0")));
    assertFalse(mightMatch(startsWith("s", "A")));
    // every value starts with "a": nothing can fail to
    assertFalse(mightMatch(notStartsWith("s", "a")));
    assertTrue(mightMatch(notStartsWith("s", "aa")));
    // non-ASCII: compared as UTF-8 bytes, i.e. by code point
    DataFile unicode = file(10, new Object[][] {{2, 10L, 0L, null, Types.StringType.get(), "\uFFFD", "\uD83D\uDE01"}});
    assertTrue(mightMatch(startsWith("s", "\uD83D\uDE00"), unicode));
    assertFalse(mightMatch(startsWith("s", "\uD83D\uDE02"), unicode));
    assertFalse(mightMatch(startsWith("s", "z"), unicode));
  }

  @Test
  public void nestedAndPromotedColumns() {
    assertFalse(mightMatch(equal("st.x", 10)));
    assertTrue(mightMatch(equal("st.x", 9)));
    // fields inside lists have per-element stats that do not bound rows
    assertTrue(mightMatch(equal("tags.element", "z")));
    assertFalse(mightMatch(equal("l", 300)));
    assertTrue(mightMatch(equal("l", 150L)));
    assertFalse(mightMatch(greaterThan("dec", new BigDecimal("2.00"))));
    assertTrue(mightMatch(greaterThanOrEqual("dec", new BigDecimal("2.00"))));
  }
}
