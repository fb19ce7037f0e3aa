package io.floe.format.expr;

import static io.floe.format.expr.Expressions.alwaysFalse;
import static io.floe.format.expr.Expressions.alwaysTrue;
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
import static io.floe.format.expr.Expressions.notNull;
import static io.floe.format.expr.Expressions.notStartsWith;
import static io.floe.format.expr.Expressions.or;
import static io.floe.format.expr.Expressions.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.TimeTransforms;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Random;
import org.junit.Test;

public class TestProjections {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "s", Types.StringType.get()),
      Types.NestedField.optional(4, "dec", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(6, "date", Types.DateType.get()),
      Types.NestedField.optional(7, "d", Types.DoubleType.get()));

  private static final int MARCH_1_2024 = (int) LocalDate.of(2024, 3, 1).toEpochDay(); // 19783
  private static final long MARCH_1_2024_MICROS = MARCH_1_2024 * 86_400_000_000L;

  private static PartitionSpec.Builder spec() {
    return PartitionSpec.builderFor(SCHEMA);
  }

  private static Expression project(PartitionSpec spec, Expression filter) {
    return Projections.inclusive(spec).project(filter);
  }

  @Test
  public void identityCopiesEveryPredicate() {
    PartitionSpec spec = spec().identity("i").identity("s").identity("d").build();
    assertEquals(lessThan("i", 5), project(spec, lessThan("i", 5L)));
    assertEquals(notEqual("i", 5), project(spec, notEqual("i", 5)));
    assertEquals(notIn("i", 1, 2), project(spec, notIn("i", 2, 1)));
    assertEquals(notStartsWith("s", "ab"), project(spec, notStartsWith("s", "ab")));
    assertEquals(isNaN("d"), project(spec, isNaN("d")));
    assertEquals(isNull("i"), project(spec, isNull("i")));
    assertEquals(greaterThanOrEqual("i", 5), project(spec, not(lessThan("i", 5))));
  }

  @Test
  public void columnsWithoutPartitionFieldProjectToTrue() {
    PartitionSpec spec = spec().identity("i").build();
    assertEquals(alwaysTrue(), project(spec, equal("s", "a")));
    assertEquals(equal("i", 1), project(spec, and(equal("i", 1), equal("s", "a"))));
    assertEquals(alwaysTrue(), project(spec, or(equal("i", 1), equal("s", "a"))));
    assertEquals(or(equal("i", 1), equal("i", 2)), project(spec, or(equal("i", 1), equal("i", 2))));
    assertEquals(alwaysFalse(), project(spec, isNull("id")));
    assertEquals(alwaysTrue(), project(PartitionSpec.unpartitioned(), equal("i", 1)));
  }

  @Test
  public void unknownColumnFailsWithItsName() {
    PartitionSpec spec = spec().identity("i").build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> project(spec, equal("nope", 1)));
    assertEquals("Cannot find column 'nope' in table schema", e.getMessage());
  }

  @Test
  public void bucketKeepsOnlyEquality() {
    PartitionSpec spec = spec().bucket("id", 16).bucket("s", 16).build();
    // spec vectors: bucket[16] of long 34 is 3, of long 0 is 12, of "iceberg" is 9
    assertEquals(equal("id_bucket", 3), project(spec, equal("id", 34)));
    assertEquals(in("id_bucket", 3, 12), project(spec, in("id", 34L, 0L)));
    assertEquals(equal("s_bucket", 9), project(spec, equal("s", "iceberg")));
    assertEquals(alwaysTrue(), project(spec, lessThan("id", 34)));
    assertEquals(alwaysTrue(), project(spec, notEqual("id", 34)));
    assertEquals(alwaysTrue(), project(spec, notIn("id", 34, 35)));
    assertEquals(alwaysTrue(), project(spec, startsWith("s", "ice")));
    assertEquals(isNull("s_bucket"), project(spec, isNull("s")));
    assertEquals(notNull("s_bucket"), project(spec, notNull("s")));
  }

  @Test
  public void truncateIntegers() {
    PartitionSpec spec = spec().truncate("i", 10).truncate("id", 10).build();
    assertEquals(equal("i_trunc", 10), project(spec, equal("i", 15)));
    assertEquals(in("i_trunc", 0, 10), project(spec, in("i", 1, 15, 19)));
    assertEquals(lessThanOrEqual("i_trunc", 10), project(spec, lessThan("i", 15)));
    assertEquals(lessThanOrEqual("i_trunc", 0), project(spec, lessThan("i", 10)));
    assertEquals(lessThanOrEqual("i_trunc", 10), project(spec, lessThanOrEqual("i", 10)));
    assertEquals(greaterThanOrEqual("i_trunc", 10), project(spec, greaterThan("i", 9)));
    assertEquals(greaterThanOrEqual("i_trunc", 20), project(spec, greaterThan("i", 19)));
    assertEquals(greaterThanOrEqual("i_trunc", 10), project(spec, greaterThanOrEqual("i", 15)));
    assertEquals(greaterThanOrEqual("i_trunc", -10), project(spec, greaterThanOrEqual("i", -1)));
    assertEquals(alwaysTrue(), project(spec, notEqual("i", 15)));
    assertEquals(alwaysFalse(), project(spec, lessThan("i", Integer.MIN_VALUE)));
    assertEquals(alwaysFalse(), project(spec, greaterThan("id", Long.MAX_VALUE)));
    assertEquals(lessThanOrEqual("id_trunc", 10L), project(spec, lessThan("id", 15)));
  }

  @Test
  public void truncateDecimals() {
    PartitionSpec spec = spec().truncate("dec", 10).build();
    assertEquals(equal("dec_trunc", new BigDecimal("12.30")), project(spec, equal("dec", new BigDecimal("12.34"))));
    assertEquals(lessThanOrEqual("dec_trunc", new BigDecimal("12.20")), project(spec, lessThan("dec", new BigDecimal("12.30"))));
    assertEquals(greaterThanOrEqual("dec_trunc", new BigDecimal("12.30")), project(spec, greaterThan("dec", new BigDecimal("12.29"))));
    assertEquals(greaterThanOrEqual("dec_trunc", new BigDecimal("-0.10")), project(spec, greaterThanOrEqual("dec", new BigDecimal("-0.05"))));
  }

  @Test
  public void truncateStrings() {
    PartitionSpec spec = spec().truncate("s", 3).build();
    assertEquals(equal("s_trunc", "ice"), project(spec, equal("s", "iceberg")));
    assertEquals(in("s_trunc", "ab", "ice"), project(spec, in("s", "iceberg", "ab")));
    assertEquals(equal("s_trunc", "ice"), project(spec, startsWith("s", "iceberg")));
    assertEquals(equal("s_trunc", "ice"), project(spec, startsWith("s", "ice")));
    assertEquals(startsWith("s_trunc", "ic"), project(spec, startsWith("s", "ic")));
    assertEquals(notStartsWith("s_trunc", "ic"), project(spec, notStartsWith("s", "ic")));
    assertEquals(notStartsWith("s_trunc", "ice"), project(spec, notStartsWith("s", "ice")));
    assertEquals(alwaysTrue(), project(spec, notStartsWith("s", "iceb")));
    assertEquals(lessThanOrEqual("s_trunc", "icf"), project(spec, lessThan("s", "icf")));
    assertEquals(greaterThanOrEqual("s_trunc", "ice"), project(spec, greaterThan("s", "iceberg")));
    assertEquals(alwaysTrue(), project(spec, notEqual("s", "iceberg")));
    // code points, not UTF-16 units
    assertEquals(equal("s_trunc", "\uD83D\uDE00ab"), project(spec, startsWith("s", "\uD83D\uDE00abc")));
  }

  @Test
  public void dayHourMonthOfTimestampAdjustExclusiveBoundaries() {
    PartitionSpec spec = spec().add("ts", TimeTransforms.day(), null).build();
    assertEquals(lessThanOrEqual("ts_day", MARCH_1_2024 - 1), project(spec, lessThan("ts", MARCH_1_2024_MICROS)));
    assertEquals(lessThanOrEqual("ts_day", MARCH_1_2024), project(spec, lessThanOrEqual("ts", MARCH_1_2024_MICROS)));
    assertEquals(lessThanOrEqual("ts_day", MARCH_1_2024), project(spec, lessThan("ts", MARCH_1_2024_MICROS + 1)));
    assertEquals(greaterThanOrEqual("ts_day", MARCH_1_2024), project(spec, greaterThan("ts", MARCH_1_2024_MICROS - 1)));
    assertEquals(greaterThanOrEqual("ts_day", MARCH_1_2024 - 1), project(spec, greaterThanOrEqual("ts", MARCH_1_2024_MICROS - 1)));
    assertEquals(equal("ts_day", MARCH_1_2024), project(spec, equal("ts", MARCH_1_2024_MICROS + 5)));
    assertEquals(in("ts_day", MARCH_1_2024 - 1, MARCH_1_2024),
        project(spec, in("ts", MARCH_1_2024_MICROS, MARCH_1_2024_MICROS - 1, MARCH_1_2024_MICROS + 7)));
    assertEquals(alwaysTrue(), project(spec, notEqual("ts", MARCH_1_2024_MICROS)));
    assertEquals(alwaysTrue(), project(spec, notIn("ts", 1L, 2L)));
    assertEquals(lessThanOrEqual("ts_day", -1), project(spec, lessThan("ts", 0L)));

    PartitionSpec hours = spec().add("ts", TimeTransforms.hour(), null).build();
    assertEquals(lessThanOrEqual("ts_hour", MARCH_1_2024 * 24 - 1), project(hours, lessThan("ts", MARCH_1_2024_MICROS)));
    PartitionSpec months = spec().add("ts", TimeTransforms.month(), null).build();
    int march2024 = (2024 - 1970) * 12 + 2;
    assertEquals(lessThanOrEqual("ts_month", march2024 - 1), project(months, lessThan("ts", MARCH_1_2024_MICROS)));
    assertEquals(greaterThanOrEqual("ts_month", march2024), project(months, greaterThan("ts", MARCH_1_2024_MICROS - 1)));
    // a literal no transform can map gives no constraint instead of an error
    assertEquals(alwaysTrue(), project(hours, lessThan("ts", Long.MAX_VALUE)));
  }

  @Test
  public void yearAndDayOfDate() {
    int jan1st2024 = (int) LocalDate.of(2024, 1, 1).toEpochDay();
    PartitionSpec spec = spec().add("date", TimeTransforms.year(), null).add("date", TimeTransforms.day(), "dd").build();
    assertEquals(and(lessThanOrEqual("date_year", 53), lessThanOrEqual("dd", jan1st2024 - 1)),
        project(spec, lessThan("date", jan1st2024)));
    assertEquals(and(greaterThanOrEqual("date_year", 54), greaterThanOrEqual("dd", jan1st2024)),
        project(spec, greaterThanOrEqual("date", jan1st2024)));
    assertEquals(and(equal("date_year", 54), equal("dd", jan1st2024)), project(spec, equal("date", jan1st2024)));
  }

  @Test
  public void voidProjectsToTrue() {
    PartitionSpec spec = spec().add("i", io.floe.format.partition.Transforms.alwaysNull(), null).build();
    assertEquals(alwaysTrue(), project(spec, equal("i", 1)));
    assertEquals(alwaysTrue(), project(spec, isNull("i")));
  }

  @Test
  public void strictProjections() {
    PartitionSpec identity = spec().identity("i").build();
    assertEquals(lessThan("i", 5), strict(identity, lessThan("i", 5)));
    assertEquals(alwaysFalse(), strict(identity, equal("s", "a")));
    assertEquals(equal("i", 1), strict(identity, or(equal("i", 1), equal("s", "a"))));
    assertEquals(alwaysFalse(), strict(identity, and(equal("i", 1), equal("s", "a"))));

    PartitionSpec bucket = spec().bucket("id", 16).build();
    assertEquals(alwaysFalse(), strict(bucket, equal("id", 34)));
    assertEquals(notEqual("id_bucket", 3), strict(bucket, notEqual("id", 34)));
    assertEquals(notIn("id_bucket", 3, 12), strict(bucket, notIn("id", 34, 0)));

    PartitionSpec day = spec().add("ts", TimeTransforms.day(), null).build();
    assertEquals(lessThan("ts_day", MARCH_1_2024), strict(day, lessThan("ts", MARCH_1_2024_MICROS)));
    assertEquals(lessThan("ts_day", MARCH_1_2024), strict(day, lessThanOrEqual("ts", MARCH_1_2024_MICROS - 1)));
    assertEquals(greaterThan("ts_day", MARCH_1_2024 - 1), strict(day, greaterThanOrEqual("ts", MARCH_1_2024_MICROS)));
    assertEquals(greaterThan("ts_day", MARCH_1_2024), strict(day, greaterThanOrEqual("ts", MARCH_1_2024_MICROS + 1)));
    assertEquals(alwaysFalse(), strict(day, equal("ts", MARCH_1_2024_MICROS)));

    PartitionSpec trunc = spec().truncate("s", 3).build();
    assertEquals(startsWith("s_trunc", "ic"), strict(trunc, startsWith("s", "ic")));
    assertEquals(alwaysFalse(), strict(trunc, startsWith("s", "iceb")));
    assertEquals(notEqual("s_trunc", "ice"), strict(trunc, notStartsWith("s", "iceb")));
    assertEquals(alwaysFalse(), strict(PartitionSpec.unpartitioned(), equal("i", 1)));
  }

  private static Expression strict(PartitionSpec spec, Expression filter) {
    return Projections.strict(spec).project(filter);
  }

  /**
   * The defining properties, on many random rows and predicates near transform boundaries: a row
   * that matches the filter lands in a partition that matches the inclusive projection, and a
   * row whose partition matches the strict projection matches the filter.
   */
  @Test
  public void projectionsHoldForRandomRowsAndPredicates() {
    PartitionSpec spec = spec().truncate("i", 10).bucket("id", 8).truncate("s", 2)
        .add("ts", TimeTransforms.day(), null).add("ts", TimeTransforms.hour(), null)
        .add("date", TimeTransforms.month(), null).add("date", TimeTransforms.year(), null)
        .truncate("dec", 50).build();
    Random random = new Random(42);
    String[] names = {"id", "i", "s", "dec", "ts", "date"}; // schema order
    Expression.Operation[] ops = {Expression.Operation.LT, Expression.Operation.LT_EQ, Expression.Operation.GT,
        Expression.Operation.GT_EQ, Expression.Operation.EQ, Expression.Operation.NOT_EQ, Expression.Operation.IN,
        Expression.Operation.NOT_IN, Expression.Operation.STARTS_WITH, Expression.Operation.NOT_STARTS_WITH,
        Expression.Operation.IS_NULL, Expression.Operation.NOT_NULL};
    int inclusiveChecked = 0;
    int strictChecked = 0;
    for (int n = 0; n < 30_000; n++) {
      Object[] row = randomRow(random);
      int col = random.nextInt(names.length);
      Expression.Operation op = ops[random.nextInt(ops.length)];
      if ((op == Expression.Operation.STARTS_WITH || op == Expression.Operation.NOT_STARTS_WITH) && col != 2) {
        continue;
      }
      Expression filter;
      if (op.isUnary()) {
        filter = Expressions.predicate(op, names[col]);
      } else if (op.isSet()) {
        filter = Expressions.predicate(op, names[col], randomValue(random, col), randomValue(random, col));
      } else {
        filter = Expressions.predicate(op, names[col], randomValue(random, col));
      }
      if (random.nextInt(4) == 0) {
        filter = not(filter);
      }
      Object[] partition = new Object[spec.fields().size()];
      for (int f = 0; f < partition.length; f++) {
        PartitionField field = spec.fields().get(f);
        partition[f] = field.transform().apply(row[field.sourceId() - 1]);
      }
      boolean rowMatches = new Evaluator(SCHEMA.asStruct(), filter).eval(row);
      String where = " row " + java.util.Arrays.toString(row) + " partition " + java.util.Arrays.toString(partition);
      if (rowMatches) {
        inclusiveChecked++;
        Expression projected = project(spec, filter);
        assertTrue(filter + " matched but inclusive " + projected + " did not:" + where,
            new Evaluator(spec.partitionType(), projected).eval(PartitionData.of(partition)));
      }
      Expression strictProjection = strict(spec, filter);
      if (new Evaluator(spec.partitionType(), strictProjection).eval(PartitionData.of(partition))) {
        strictChecked++;
        assertTrue("strict " + strictProjection + " matched but " + filter + " did not:" + where, rowMatches);
      }
    }
    assertTrue("too few inclusive cases: " + inclusiveChecked, inclusiveChecked > 5_000);
    assertTrue("too few strict cases: " + strictChecked, strictChecked > 2_000);
  }

  private static Object[] randomRow(Random random) {
    Object[] row = new Object[7];
    for (int col = 0; col < 6; col++) {
      row[col] = col > 0 && random.nextInt(10) == 0 ? null : randomValue(random, col);
    }
    return row;
  }

  private static Object randomValue(Random random, int col) {
    switch (col) {
      case 0:
        return (long) (random.nextInt(41) - 20);
      case 1:
        return random.nextInt(41) - 20;
      case 2:
        return List.of("", "a", "ab", "abc", "abd", "b", "ba", "\uD83D\uDE00", "\uD83D\uDE00a").get(random.nextInt(9));
      case 3:
        return BigDecimal.valueOf(random.nextInt(401) - 200, 2);
      case 4: {
        long base = MARCH_1_2024_MICROS + (random.nextInt(5) - 2) * 3_600_000_000L;
        return base + random.nextInt(3) - 1;
      }
      default:
        return (int) LocalDate.of(2023 + random.nextInt(3), 1 + random.nextInt(12), 1).toEpochDay()
            + random.nextInt(3) - 1;
    }
  }
}
