package io.floe.format.expr;

import static io.floe.format.expr.Expressions.alwaysFalse;
import static io.floe.format.expr.Expressions.alwaysTrue;
import static io.floe.format.expr.Expressions.and;
import static io.floe.format.expr.Expressions.equal;
import static io.floe.format.expr.Expressions.greaterThanOrEqual;
import static io.floe.format.expr.Expressions.isNull;
import static io.floe.format.expr.Expressions.lessThan;
import static io.floe.format.expr.Expressions.not;
import static io.floe.format.expr.Expressions.notEqual;
import static io.floe.format.expr.Expressions.notNull;
import static io.floe.format.expr.Expressions.or;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Expression.Operation;
import java.nio.ByteBuffer;
import org.junit.Test;

public class TestExpressions {

  @Test
  public void andOrNotFoldConstants() {
    Expression x = equal("x", 1);
    assertSame(x, and(alwaysTrue(), x));
    assertSame(x, and(x, alwaysTrue()));
    assertSame(alwaysFalse(), and(x, alwaysFalse()));
    assertSame(alwaysTrue(), or(alwaysTrue(), x));
    assertSame(x, or(alwaysFalse(), x));
    assertSame(alwaysFalse(), not(alwaysTrue()));
    assertSame(alwaysTrue(), not(alwaysFalse()));
    assertSame(x, not(not(x)));
  }

  @Test
  public void emptySetsFold() {
    assertSame(alwaysFalse(), Expressions.in("x"));
    assertSame(alwaysTrue(), Expressions.notIn("x"));
  }

  @Test
  public void everyPredicateOperationNegatesBackToItself() {
    for (Operation op : Operation.values()) {
      if (op != Operation.NOT) {
        assertEquals(op, op.negate().negate());
      }
    }
    assertEquals(Operation.GT, Operation.LT.flipLR());
    assertEquals(Operation.LT_EQ, Operation.GT_EQ.flipLR());
  }

  @Test
  public void rewriteNotPushesNegationIntoPredicates() {
    Expression expr = not(and(lessThan("x", 5), or(isNull("y"), not(equal("z", "a")))));
    Expression expected = or(greaterThanOrEqual("x", 5), and(notNull("y"), equal("z", "a")));
    assertEquals(expected, Expressions.rewriteNot(expr));
  }

  @Test
  public void literalsAreNormalized() {
    UnboundPredicate p = equal("s", new StringBuilder("abc"));
    assertEquals("abc", p.literal());
    byte[] bytes = {1, 2};
    UnboundPredicate b = equal("b", bytes);
    bytes[0] = 9;
    assertEquals(ByteBuffer.wrap(new byte[] {1, 2}), b.literal());
    assertEquals(7, equal("i", (short) 7).literal());
  }

  @Test
  public void nullAndNaNLiteralsAreRejectedWithAHint() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> equal("x", null));
    assertTrue(e.getMessage(), e.getMessage().contains("isNull"));
    e = assertThrows(IllegalArgumentException.class, () -> lessThan("d", Double.NaN));
    assertTrue(e.getMessage(), e.getMessage().contains("isNaN"));
    assertThrows(IllegalArgumentException.class, () -> Expressions.in("x", 1, null));
    assertThrows(IllegalArgumentException.class, () -> equal("x", new Object()));
  }

  @Test
  public void toStringIsReadable() {
    assertEquals("(x < 5 and s == 'a')", and(lessThan("x", 5), equal("s", "a")).toString());
    assertEquals("x in (1, 2)", Expressions.in("x", 1, 2).toString());
    assertEquals("not(x is null)", not(isNull("x")).toString());
    assertEquals("x != 3", notEqual("x", 3).toString());
  }
}
