package io.floe.format.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Transform terms as written in SQL, and the Floe transforms they stand for. */
public class TestTransformTerm {
  private static String transform(String text) {
    return TransformTerm.parse(text).toTransform().toString();
  }

  @Test
  public void sparkAndIcebergSpellings() {
    assertEquals("identity", transform("id"));
    assertEquals("identity", transform("identity(id)"));
    assertEquals("bucket[16]", transform("bucket(16, id)"));
    assertEquals("bucket[16]", transform("BUCKET(id, 16)"));
    assertEquals("truncate[4]", transform("truncate(4, s)"));
    for (String unit : new String[] {"year", "month", "day", "hour"}) {
      assertEquals(unit, transform(unit + "s(ts)"));
      assertEquals(unit, transform(unit + "(ts)"));
    }
  }

  @Test
  public void columnsAndRoundTrip() {
    TransformTerm term = TransformTerm.parse("bucket(8, `a b`)");
    assertEquals("a b", term.columnName());
    assertFalse(term.isColumnReference());
    assertEquals(term, TransformTerm.parse(term.toSql()));
    assertTrue(TransformTerm.parse("`x`.y").isColumnReference());
    assertEquals("x.y", TransformTerm.parse("`x`.y").columnName());
  }

  @Test
  public void badWidthsAreFormatErrors() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TransformTerm.parse("bucket(0, id)").toTransform());
    assertTrue(e.getMessage(), e.getMessage().contains("Invalid number of buckets: 0"));
    e = assertThrows(IllegalArgumentException.class, () -> TransformTerm.parse("truncate(-1, s)").toTransform());
    assertTrue(e.getMessage(), e.getMessage().contains("Invalid truncate width: -1"));
  }

  @Test
  public void malformedTerms() {
    assertThrows(SqlSyntaxException.class, () -> TransformTerm.parse("bucket(4)"));
    assertThrows(SqlSyntaxException.class, () -> TransformTerm.parse("bucket(4, 5)"));
    assertThrows(SqlSyntaxException.class, () -> TransformTerm.parse("days(ts) extra"));
    assertThrows(SqlSyntaxException.class, () -> TransformTerm.parse("bucket(99999999999, id)"));
    assertThrows(SqlSyntaxException.class, () -> TransformTerm.parse(""));
  }
}
