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

import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.PartitionFieldSummary;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.TimeTransforms;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.Arrays;
import org.junit.Test;

public class TestManifestEvaluator {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "i", Types.IntegerType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()),
      Types.NestedField.optional(3, "d", Types.DoubleType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()));
  /** Partition fields: i (identity), s (identity), d (identity), ts_day. */
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA)
      .identity("i").identity("s").identity("d").add("ts", TimeTransforms.day(), null).build();

  private static PartitionFieldSummary summary(Type type, boolean nulls, Boolean nans, Object lower, Object upper) {
    return new PartitionFieldSummary(nulls, nans, Conversions.toByteBuffer(type, lower),
        Conversions.toByteBuffer(type, upper));
  }

  /** i in [10, 20] no nulls; s in ["apple", "banana"] with nulls; d in [1.0, 2.0] + NaN; days [100, 200]. */
  private static final ManifestFile MANIFEST = ManifestFile.builder("m.avro").withPartitions(Arrays.asList(
      summary(Types.IntegerType.get(), false, null, 10, 20),
      summary(Types.StringType.get(), true, null, "apple", "banana"),
      summary(Types.DoubleType.get(), false, true, 1.0, 2.0),
      summary(Types.DateType.get(), false, null, 100, 200))).build();

  private static boolean partitionFilter(Expression filter) {
    return ManifestEvaluator.forPartitionFilter(filter, SPEC).eval(MANIFEST);
  }

  private static boolean rowFilter(Expression filter, ManifestFile manifest) {
    return ManifestEvaluator.forRowFilter(filter, SPEC).eval(manifest);
  }

  @Test
  public void rangesAgainstIntegerBounds() {
    assertFalse(partitionFilter(lessThan("i", 10)));
    assertTrue(partitionFilter(lessThan("i", 11)));
    assertFalse(partitionFilter(lessThanOrEqual("i", 9)));
    assertTrue(partitionFilter(lessThanOrEqual("i", 10)));
    assertFalse(partitionFilter(greaterThan("i", 20)));
    assertTrue(partitionFilter(greaterThanOrEqual("i", 20)));
    assertFalse(partitionFilter(greaterThanOrEqual("i", 21)));
    assertFalse(partitionFilter(equal("i", 9)));
    assertTrue(partitionFilter(equal("i", 15)));
    assertFalse(partitionFilter(in("i", 1, 2, 30)));
    assertTrue(partitionFilter(in("i", 1, 20)));
    assertTrue(partitionFilter(notEqual("i", 15)));
    assertTrue(partitionFilter(notIn("i", 10, 20)));
  }

  @Test
  public void nullChecks() {
    assertFalse(partitionFilter(isNull("i")));
    assertTrue(partitionFilter(notNull("i")));
    assertTrue(partitionFilter(isNull("s")));
    ManifestFile allNull = ManifestFile.builder("n.avro").withPartitions(Arrays.asList(
        summary(Types.IntegerType.get(), true, null, null, null),
        summary(Types.StringType.get(), true, null, null, null),
        summary(Types.DoubleType.get(), true, false, null, null),
        summary(Types.DateType.get(), true, null, null, null))).build();
    ManifestEvaluator notNullI = ManifestEvaluator.forPartitionFilter(notNull("i"), SPEC);
    assertFalse(notNullI.eval(allNull));
    assertTrue(ManifestEvaluator.forPartitionFilter(isNull("i"), SPEC).eval(allNull));
    assertFalse(ManifestEvaluator.forPartitionFilter(equal("i", 1), SPEC).eval(allNull));
    assertFalse(ManifestEvaluator.forPartitionFilter(notEqual("i", 1), SPEC).eval(allNull));
    assertFalse(ManifestEvaluator.forPartitionFilter(startsWith("s", "a"), SPEC).eval(allNull));
    assertFalse(ManifestEvaluator.forPartitionFilter(greaterThan("d", 1.0), SPEC).eval(allNull));
    // not NaN is true for null
    assertTrue(ManifestEvaluator.forPartitionFilter(notNaN("d"), SPEC).eval(allNull));
  }

  @Test
  public void nanRules() {
    assertTrue(partitionFilter(isNaN("d")));
    // NaN is above every number, so a manifest with NaN may satisfy d > 5
    assertTrue(partitionFilter(greaterThan("d", 5.0)));
    assertFalse(partitionFilter(lessThan("d", 1.0)));
    assertFalse(partitionFilter(equal("d", 5.0)));
    ManifestFile noNaN = ManifestFile.builder("x.avro").withPartitions(Arrays.asList(
        summary(Types.IntegerType.get(), false, null, 10, 20),
        summary(Types.StringType.get(), false, null, "a", "b"),
        summary(Types.DoubleType.get(), false, false, 1.0, 2.0),
        summary(Types.DateType.get(), false, null, 100, 200))).build();
    assertFalse(ManifestEvaluator.forPartitionFilter(isNaN("d"), SPEC).eval(noNaN));
    assertFalse(ManifestEvaluator.forPartitionFilter(greaterThan("d", 5.0), SPEC).eval(noNaN));
    ManifestFile onlyNaN = ManifestFile.builder("y.avro").withPartitions(Arrays.asList(
        summary(Types.IntegerType.get(), false, null, 10, 20),
        summary(Types.StringType.get(), false, null, "a", "b"),
        summary(Types.DoubleType.get(), false, true, null, null),
        summary(Types.DateType.get(), false, null, 100, 200))).build();
    assertFalse(ManifestEvaluator.forPartitionFilter(notNaN("d"), SPEC).eval(onlyNaN));
    assertFalse(ManifestEvaluator.forPartitionFilter(lessThan("d", 5.0), SPEC).eval(onlyNaN));
    assertTrue(ManifestEvaluator.forPartitionFilter(greaterThan("d", 5.0), SPEC).eval(onlyNaN));
    assertTrue(ManifestEvaluator.forPartitionFilter(isNaN("d"), SPEC).eval(onlyNaN));
  }

  @Test
  public void stringsAndPrefixes() {
    assertTrue(partitionFilter(equal("s", "b")));
    assertFalse(partitionFilter(equal("s", "c")));
    assertFalse(partitionFilter(lessThan("s", "apple")));
    assertTrue(partitionFilter(startsWith("s", "app")));
    assertTrue(partitionFilter(startsWith("s", "b")));
    assertTrue(partitionFilter(startsWith("s", "apz")));
    assertFalse(partitionFilter(startsWith("s", "ap0")));
    assertFalse(partitionFilter(startsWith("s", "c")));
    assertFalse(partitionFilter(startsWith("s", "bananas")));
    assertTrue(partitionFilter(notStartsWith("s", "a")));
    ManifestFile sameStart = ManifestFile.builder("z.avro").withPartitions(Arrays.asList(
        summary(Types.IntegerType.get(), false, null, 10, 20),
        summary(Types.StringType.get(), true, null, "abc", "abz"),
        summary(Types.DoubleType.get(), false, false, 1.0, 2.0),
        summary(Types.DateType.get(), false, null, 100, 200))).build();
    assertFalse(ManifestEvaluator.forPartitionFilter(notStartsWith("s", "ab"), SPEC).eval(sameStart));
    assertTrue(ManifestEvaluator.forPartitionFilter(notStartsWith("s", "abc"), SPEC).eval(sameStart));
  }

  @Test
  public void rowFiltersProjectThroughTheSpec() {
    long day = 86_400_000_000L;
    assertFalse(rowFilter(lessThan("ts", 100 * day), MANIFEST));
    assertTrue(rowFilter(lessThan("ts", 100 * day + 1), MANIFEST));
    assertFalse(rowFilter(greaterThanOrEqual("ts", 201 * day), MANIFEST));
    assertTrue(rowFilter(greaterThanOrEqual("ts", 201 * day - 1), MANIFEST));
    assertFalse(rowFilter(and(equal("i", 15), equal("ts", 5L)), MANIFEST));
    assertTrue(rowFilter(or(equal("i", 15), equal("ts", 5L)), MANIFEST));
    assertTrue(rowFilter(not(equal("i", 15)), MANIFEST));
    assertFalse(rowFilter(not(greaterThanOrEqual("i", 10)), MANIFEST));
  }

  @Test
  public void missingSummariesMightMatch() {
    ManifestFile none = ManifestFile.builder("v1.avro").build();
    assertTrue(ManifestEvaluator.forPartitionFilter(equal("i", 1), SPEC).eval(none));
    assertTrue(ManifestEvaluator.forPartitionFilter(Expressions.alwaysTrue(), SPEC).eval(MANIFEST));
    assertFalse(ManifestEvaluator.forPartitionFilter(Expressions.alwaysFalse(), SPEC).eval(MANIFEST));
  }
}
