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
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.partition.PartitionData;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import org.junit.Test;

public class TestEvaluator {
  private static final Types.StructType STRUCT = Types.StructType.of(
      Types.NestedField.optional(1, "x", Types.IntegerType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()),
      Types.NestedField.optional(3, "d", Types.DoubleType.get()),
      Types.NestedField.optional(4, "dec", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(5, "b", Types.BinaryType.get()),
      Types.NestedField.optional(6, "st", Types.StructType.of(
          Types.NestedField.optional(7, "y", Types.LongType.get()))),
      Types.NestedField.optional(8, "tags", Types.ListType.ofOptional(9, Types.StringType.get())));

  private static boolean eval(Expression expr, Object... row) {
    return new Evaluator(STRUCT, expr).eval(row);
  }

  private static Object[] row(Integer x, String s, Double d) {
    return new Object[] {x, s, d, null, null, null, null};
  }

  /** Each case: expression, expected for x = 5, x = 7, x = null. */
  private static void assertOnX(Expression expr, boolean at5, boolean at7, boolean atNull) {
    assertEquals(expr + " at 5", at5, new Evaluator(STRUCT, expr).eval(row(5, null, null)));
    assertEquals(expr + " at 7", at7, new Evaluator(STRUCT, expr).eval(row(7, null, null)));
    assertEquals(expr + " at null", atNull, new Evaluator(STRUCT, expr).eval(row(null, null, null)));
  }

  @Test
  public void comparisonTruthTable() {
    assertOnX(lessThan("x", 7), true, false, false);
    assertOnX(lessThanOrEqual("x", 7), true, true, false);
    assertOnX(greaterThan("x", 5), false, true, false);
    assertOnX(greaterThanOrEqual("x", 5), true, true, false);
    assertOnX(equal("x", 5), true, false, false);
    assertOnX(notEqual("x", 5), false, true, false);
    assertOnX(in("x", 5, 6), true, false, false);
    assertOnX(notIn("x", 5, 6), false, true, false);
    assertOnX(isNull("x"), false, false, true);
    assertOnX(notNull("x"), true, true, false);
  }

  @Test
  public void notOverNullStaysFalseLikeSql() {
    // NOT(NULL < 7) is NULL, which does not select the row
    assertOnX(not(lessThan("x", 7)), false, true, false);
    assertOnX(not(equal("x", 5)), false, true, false);
    assertOnX(not(in("x", 5)), false, true, false);
    assertOnX(not(isNull("x")), true, true, false);
    assertOnX(not(and(lessThan("x", 7), greaterThan("x", 5))), true, true, false);
    assertOnX(not(or(equal("x", 5), isNull("x"))), false, true, false);
    // x < 7 OR NOT(x < 7) is not a tautology with nulls
    assertOnX(or(lessThan("x", 7), not(lessThan("x", 7))), true, true, false);
    assertOnX(not(not(lessThan("x", 7))), true, false, false);
  }

  @Test
  public void connectives() {
    Object[] r = row(5, "abc", null);
    assertTrue(eval(and(equal("x", 5), startsWith("s", "ab")), r));
    assertFalse(eval(and(equal("x", 5), startsWith("s", "b")), r));
    assertTrue(eval(or(equal("x", 6), startsWith("s", "ab")), r));
    assertTrue(eval(Expressions.alwaysTrue(), r));
    assertFalse(eval(Expressions.alwaysFalse(), r));
  }

  @Test
  public void stringsAndPrefixes() {
    Object[] r = row(null, "abc", null);
    assertTrue(eval(startsWith("s", "ab"), r));
    assertTrue(eval(startsWith("s", ""), r));
    assertFalse(eval(startsWith("s", "abcd"), r));
    assertTrue(eval(notStartsWith("s", "b"), r));
    assertFalse(eval(notStartsWith("s", "a"), r));
    assertFalse(eval(notStartsWith("s", "a"), row(null, null, null)));
    assertFalse(eval(startsWith("s", "a"), row(null, null, null)));
    // code point order: U+FFFD sorts below a supplementary character
    assertTrue(eval(lessThan("s", "\uD83D\uDE00"), row(null, "\uFFFD", null)));
    assertTrue(eval(in("s", "abc", "zz"), r));
  }

  @Test
  public void nanFollowsSparkSemantics() {
    Object[] nan = row(null, null, Double.NaN);
    assertTrue(eval(isNaN("d"), nan));
    assertFalse(eval(notNaN("d"), nan));
    assertTrue(eval(greaterThan("d", 1e300), nan));
    assertFalse(eval(lessThan("d", Double.POSITIVE_INFINITY), nan));
    assertFalse(eval(equal("d", 1.0), nan));
    assertTrue(eval(notEqual("d", 1.0), nan));
    // isnan(null) is false, so NOT isnan(null) is true, as in Spark
    assertFalse(eval(isNaN("d"), row(null, null, null)));
    assertTrue(eval(notNaN("d"), row(null, null, null)));
    assertTrue(eval(equal("d", 0.0), row(null, null, -0.0)));
  }

  @Test
  public void decimalsBinaryAndNestedStructs() {
    Object[] r = {null, null, null, new BigDecimal("1.50"), ByteBuffer.wrap(new byte[] {(byte) 0xFF}),
        new Object[] {42L}, null};
    assertTrue(eval(equal("dec", new BigDecimal("1.5")), r));
    assertTrue(eval(greaterThan("b", new byte[] {0x7F}), r)); // unsigned bytes
    assertTrue(eval(equal("st.y", 42), r));
    assertFalse(eval(isNull("st.y"), r));
    Object[] nullStruct = {null, null, null, null, null, null, null};
    assertTrue(eval(isNull("st.y"), nullStruct));
    assertFalse(eval(equal("st.y", 42), nullStruct));
  }

  @Test
  public void partitionTuples() {
    Types.StructType partitionType = Types.StructType.of(
        Types.NestedField.optional(1000, "day", Types.DateType.get()),
        Types.NestedField.optional(1001, "b", Types.IntegerType.get()));
    Evaluator evaluator = new Evaluator(partitionType, and(greaterThanOrEqual("day", 19000), in("b", 1, 3)));
    assertTrue(evaluator.eval(PartitionData.of(19000, 3)));
    assertFalse(evaluator.eval(PartitionData.of(18999, 3)));
    assertFalse(evaluator.eval(PartitionData.of(null, 3)));
    assertFalse(evaluator.eval(PartitionData.of(19001, 2)));
  }

  @Test
  public void fieldsInsideListsCannotBeEvaluated() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new Evaluator(STRUCT, or(equal("x", 1), equal("tags.element", "a"))));
    assertTrue(e.getMessage(), e.getMessage().contains("tags.element"));
  }
}
