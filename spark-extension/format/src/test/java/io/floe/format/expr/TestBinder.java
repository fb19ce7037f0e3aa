package io.floe.format.expr;

import static io.floe.format.expr.Expressions.equal;
import static io.floe.format.expr.Expressions.greaterThan;
import static io.floe.format.expr.Expressions.greaterThanOrEqual;
import static io.floe.format.expr.Expressions.in;
import static io.floe.format.expr.Expressions.isNaN;
import static io.floe.format.expr.Expressions.isNull;
import static io.floe.format.expr.Expressions.lessThan;
import static io.floe.format.expr.Expressions.lessThanOrEqual;
import static io.floe.format.expr.Expressions.notEqual;
import static io.floe.format.expr.Expressions.notIn;
import static io.floe.format.expr.Expressions.notNull;
import static io.floe.format.expr.Expressions.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Expression.Operation;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.junit.Test;

public class TestBinder {
  static final Types.StructType STRUCT = Types.StructType.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "f", Types.FloatType.get()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()),
      Types.NestedField.optional(5, "s", Types.StringType.get()),
      Types.NestedField.optional(6, "dec", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(7, "day", Types.DateType.get()),
      Types.NestedField.optional(8, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(9, "u", Types.UUIDType.get()),
      Types.NestedField.optional(10, "b", Types.BinaryType.get()),
      Types.NestedField.optional(11, "st", Types.StructType.of(
          Types.NestedField.required(12, "x", Types.IntegerType.get()))),
      Types.NestedField.optional(13, "tags", Types.ListType.ofRequired(14, Types.StringType.get())),
      Types.NestedField.required(15, "rs", Types.StructType.of(
          Types.NestedField.required(16, "y", Types.IntegerType.get()))));

  private static BoundPredicate bindPredicate(Expression unbound) {
    Expression bound = Binder.bind(STRUCT, unbound);
    assertTrue("expected a predicate: " + bound, bound instanceof BoundPredicate);
    return (BoundPredicate) bound;
  }

  private static void assertBound(Expression unbound, Operation op, Object... literals) {
    BoundPredicate p = bindPredicate(unbound);
    assertEquals(op, p.op());
    assertEquals(List.of(literals), p.literals());
  }

  @Test
  public void unknownColumnIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Binder.bind(STRUCT, equal("x", 1)));
    assertEquals("Cannot find column 'x' in table schema", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, equal("st.nope", 1)));
    assertEquals("Cannot find column 'st.nope' in table schema", e.getMessage());
  }

  @Test
  public void boundPredicateCarriesFieldIdTypeAndName() {
    BoundPredicate p = bindPredicate(equal("st.x", 3));
    assertEquals(12, p.fieldId());
    assertEquals("st.x", p.name());
    assertEquals(Types.IntegerType.get(), p.type());
    assertTrue(p.isStructPath());
    assertFalse(bindPredicate(equal("tags.element", "a")).isStructPath());
  }

  @Test
  public void integersWidenToLongAndTimestampMicros() {
    assertBound(equal("id", 5), Operation.EQ, 5L);
    assertBound(lessThan("ts", 1_000), Operation.LT, 1_000L);
    assertBound(equal("day", 19_000L), Operation.EQ, 19_000);
    assertBound(equal("i", 7L), Operation.EQ, 7);
  }

  @Test
  public void floatingLiteralsConvert() {
    assertBound(equal("d", 1.5f), Operation.EQ, 1.5d);
    assertBound(equal("d", 3), Operation.EQ, 3.0d);
    assertBound(equal("f", 0.5d), Operation.EQ, 0.5f);
    assertBound(greaterThan("f", 2L), Operation.GT, 2.0f);
  }

  @Test
  public void doubleThatFloatCannotHoldFolds() {
    // 0.1 lies strictly between two floats
    float below = (float) 0.1d < 0.1d ? (float) 0.1d : Math.nextDown((float) 0.1d);
    float above = Math.nextUp(below);
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, equal("f", 0.1d)));
    assertBound(lessThan("f", 0.1d), Operation.LT_EQ, below);
    assertBound(greaterThan("f", 0.1d), Operation.GT_EQ, above);
    assertBound(notEqual("f", 0.1d), Operation.NOT_NULL);
  }

  @Test
  public void integralColumnsFoldFractionsAndOutOfRangeValues() {
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, equal("i", 3.5)));
    assertBound(lessThan("i", 3.5), Operation.LT_EQ, 3);
    assertBound(lessThanOrEqual("i", -3.5), Operation.LT_EQ, -4);
    assertBound(greaterThan("i", 3.5), Operation.GT_EQ, 4);
    assertBound(greaterThanOrEqual("i", new BigDecimal("3.00")), Operation.GT_EQ, 3);
    long huge = Integer.MAX_VALUE + 1L;
    assertBound(lessThan("i", huge), Operation.LT_EQ, Integer.MAX_VALUE);
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, greaterThan("i", huge)));
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, lessThan("i", -huge - 1)));
    assertBound(greaterThan("i", -huge - 1), Operation.GT_EQ, Integer.MIN_VALUE);
    assertBound(lessThan("i", -huge), Operation.LT, Integer.MIN_VALUE);
    assertBound(notEqual("i", huge), Operation.NOT_NULL);
    // id is required: "id != unrepresentable" is true for every row
    assertSame(Expressions.alwaysTrue(), Binder.bind(STRUCT, notEqual("id", 0.5)));
    assertBound(lessThan("id", Double.POSITIVE_INFINITY), Operation.LT_EQ, Long.MAX_VALUE);
  }

  @Test
  public void decimalsRescaleWhenExactAndFoldOtherwise() {
    BoundPredicate p = bindPredicate(equal("dec", new BigDecimal("1.5")));
    assertEquals(new BigDecimal("1.50"), p.literal());
    assertEquals(2, ((BigDecimal) p.literal()).scale());
    assertBound(equal("dec", 3), Operation.EQ, new BigDecimal("3.00"));
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, equal("dec", new BigDecimal("1.505"))));
    assertBound(lessThan("dec", new BigDecimal("1.505")), Operation.LT_EQ, new BigDecimal("1.50"));
    assertBound(greaterThan("dec", new BigDecimal("-1.505")), Operation.GT_EQ, new BigDecimal("-1.50"));
  }

  @Test
  public void setsConvertDeduplicateSortAndFold() {
    assertBound(in("i", 3, 1L, 3, 2.5, 2), Operation.IN, 1, 2, 3);
    assertBound(in("i", 3, 2.5), Operation.EQ, 3);
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, in("i", 2.5, 3.5)));
    assertBound(notIn("i", 2.5, 3.5), Operation.NOT_NULL);
    assertBound(notIn("i", 4, 2.5), Operation.NOT_EQ, 4);
  }

  @Test
  public void otherLiteralConversions() {
    assertBound(equal("s", new StringBuilder("x")), Operation.EQ, "x");
    UUID uuid = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");
    assertBound(equal("u", uuid.toString()), Operation.EQ, uuid);
    assertBound(equal("b", new byte[] {1, 2}), Operation.EQ, ByteBuffer.wrap(new byte[] {1, 2}));
  }

  @Test
  public void unconvertibleLiteralNamesColumnValueAndType() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Binder.bind(STRUCT, equal("i", "abc")));
    assertEquals("Cannot convert literal 'abc' (String) to type int of column 'i'", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, equal("day", "2024-01-01")));
    assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, equal("dec", 1.5d)));
    assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, equal("u", "not-a-uuid")));
    assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, equal("s", 1)));
    e = assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, isNaN("i")));
    assertTrue(e.getMessage(), e.getMessage().contains("'i'"));
    e = assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, startsWith("i", "1")));
    assertTrue(e.getMessage(), e.getMessage().contains("'i'"));
    e = assertThrows(IllegalArgumentException.class, () -> Binder.bind(STRUCT, equal("st", 1)));
    assertTrue(e.getMessage(), e.getMessage().contains("non-primitive"));
  }

  @Test
  public void nullChecksOnFieldsThatCannotBeNullFold() {
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, isNull("id")));
    assertSame(Expressions.alwaysTrue(), Binder.bind(STRUCT, notNull("id")));
    assertSame(Expressions.alwaysFalse(), Binder.bind(STRUCT, isNull("rs.y")));
    // st.x is required but st is optional: st.x is null when st is
    assertBound(isNull("st.x"), Operation.IS_NULL);
    assertBound(isNull("st"), Operation.IS_NULL);
    // a required list element is no per-row value: no folding
    assertBound(isNull("tags.element"), Operation.IS_NULL);
  }

  @Test
  public void bindingKeepsTreeShape() {
    Expression bound = Binder.bind(STRUCT,
        Expressions.or(Expressions.not(equal("i", 1)), Expressions.and(isNull("id"), equal("s", "a"))));
    assertTrue(bound instanceof Not);
    assertEquals("not(i == 1)", bound.toString());
  }

  @Test
  public void dottedTopLevelNamesBindAndSharedFullNamesNever() {
    Types.StructType dotted = Types.StructType.of(
        Types.NestedField.optional(1, "a.b", Types.IntegerType.get()),
        Types.NestedField.optional(2, "c", Types.StructType.of(
            Types.NestedField.optional(3, "d.e", Types.StringType.get()))));
    BoundPredicate top = (BoundPredicate) Binder.bind(dotted, equal("a.b", 1));
    assertEquals(1, top.fieldId());
    BoundPredicate nested = (BoundPredicate) Binder.bind(dotted, equal("c.d.e", "x"));
    assertEquals(3, nested.fieldId());

    // a top-level `a.b` and field b of struct a: the name could mean either, so it never binds
    Types.StructType clash = Types.StructType.of(
        Types.NestedField.optional(1, "a.b", Types.IntegerType.get()),
        Types.NestedField.optional(2, "a", Types.StructType.of(
            Types.NestedField.optional(3, "b", Types.IntegerType.get()))));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Binder.bind(clash, equal("a.b", 1)));
    assertTrue(e.getMessage(), e.getMessage().contains("'a.b'") && e.getMessage().contains("two fields"));
    assertEquals(2, ((BoundPredicate) Binder.bind(clash, isNull("a"))).fieldId());
  }
}
