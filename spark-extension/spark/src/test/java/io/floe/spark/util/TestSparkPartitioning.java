package io.floe.spark.util;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.floe.format.FloeException;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.junit.Test;

/**
 * PARTITIONED BY conversion: Spark's and Iceberg's spellings become the spec's transform names, and
 * bad partitionings are refused with errors naming the transform and the column (Spark's analyzer
 * catches some of these first in SQL; CTAS, DataFrame and other callers reach these checks).
 */
public class TestSparkPartitioning {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(4, "d", Types.DateType.get()),
      Types.NestedField.optional(5, "st", Types.StructType.of(
          Types.NestedField.optional(9, "x", Types.IntegerType.get()))),
      Types.NestedField.optional(6, "m", Types.MapType.ofOptional(10, 11, Types.StringType.get(),
          Types.IntegerType.get())),
      Types.NestedField.optional(7, "tags", Types.ListType.ofOptional(12, Types.StringType.get())),
      Types.NestedField.optional(8, "amount", Types.DecimalType.of(9, 2)));

  private static Transform apply(String name, Object... args) {
    org.apache.spark.sql.connector.expressions.Expression[] exprs =
        new org.apache.spark.sql.connector.expressions.Expression[args.length];
    for (int i = 0; i < args.length; i++) {
      exprs[i] = args[i] instanceof String ? Expressions.column((String) args[i]) : Expressions.literal(args[i]);
    }
    return Expressions.apply(name, exprs);
  }

  private static List<String> fields(Transform... transforms) {
    PartitionSpec spec = SparkPartitioning.toSpec(SCHEMA, transforms);
    return spec.fields().stream().map(PartitionField::toString).collect(Collectors.toList());
  }

  private static String summary(Transform... transforms) {
    PartitionSpec spec = SparkPartitioning.toSpec(SCHEMA, transforms);
    return spec.fields().stream().map(f -> f.name() + ":" + f.transform() + "(" + f.sourceId() + ")")
        .collect(Collectors.joining(", "));
  }

  private static String error(Transform... transforms) {
    return assertThrows(FloeException.class, () -> SparkPartitioning.toSpec(SCHEMA, transforms))
        .getMessage();
  }

  @Test
  public void sparkAndIcebergSpellingsBecomeTheSpecsNames() {
    assertEquals("ts_year:year(3), d_month:month(4), ts_day:day(3), ts_hour:hour(3)",
        summary(Expressions.years("ts"), Expressions.months("d"), Expressions.days("ts"), Expressions.hours("ts")));
    assertEquals("ts_year:year(3), d_month:month(4), d_day:day(4), ts_hour:hour(3)",
        summary(apply("year", "ts"), apply("month", "d"), apply("day", "d"), apply("hour", "ts")));
    assertEquals("ts_hour:hour(3)", summary(apply("date_hour", "ts")));
  }

  @Test
  public void bucketTruncateIdentityAndSeveralPerTable() {
    assertEquals("id_bucket:bucket[16](1), s_trunc:truncate[4](2), amount_trunc:truncate[50](8), d:identity(4),"
            + " ts_day:day(3), st.x_bucket:bucket[8](9)",
        summary(Expressions.bucket(16, "id"), apply("truncate", 4, "s"), apply("truncate", "amount", 50),
            Expressions.identity("d"), apply("days", "ts"), Expressions.bucket(8, "st.x")));
    assertEquals("id_bucket:bucket[3](1)", summary(apply("bucket", 3L, "id")));
  }

  @Test
  public void roundTripThroughSparksTransforms() {
    PartitionSpec spec = SparkPartitioning.toSpec(SCHEMA, new Transform[] {Expressions.bucket(16, "id"),
        apply("truncate", 4, "s"), apply("hour", "ts"), apply("month", "d"), Expressions.years("ts"),
        Expressions.identity("amount")});
    assertEquals(spec.fields(), SparkPartitioning.toSpec(SCHEMA, SparkPartitioning.toSpark(spec)).fields());
  }

  @Test
  public void invalidArgumentsNameTheTransformAndTheColumn() {
    assertEquals("Cannot partition by bucket(0, id) on column id: Invalid number of buckets: 0 (must be > 0)",
        error(Expressions.bucket(0, "id")));
    assertEquals("Cannot partition by truncate(-2, s) on column s: Invalid truncate width: -2 (must be > 0)",
        error(apply("truncate", -2, "s")));
    assertEquals("Cannot partition by truncate(0, s) on column s: Invalid truncate width: 0 (must be > 0)",
        error(apply("truncate", 0, "s")));
    assertEquals("Cannot partition by bucket('4', id) on column id: Invalid partition transform bucket('4', id):"
        + " expected an integer argument, got '4'",
        error(Expressions.apply("bucket", Expressions.literal("4"), Expressions.column("id"))));
    assertEquals("Cannot partition by bucket(4294967296, id) on column id: Invalid partition transform"
        + " bucket(4294967296, id): expected an integer argument, got 4294967296",
        error(apply("bucket", 4294967296L, "id")));
  }

  @Test
  public void unsupportedSourceTypesNameTheTransformAndTheColumn() {
    assertEquals("Cannot partition by hours(d): transform hours does not accept column d of type date",
        error(Expressions.hours("d")));
    assertEquals("Cannot partition by hour(d): transform hour does not accept column d of type date",
        error(apply("hour", "d")));
    assertEquals("Cannot partition by truncate(2, ts): transform truncate does not accept column ts of type"
        + " timestamp", error(apply("truncate", 2, "ts")));
    assertEquals("Cannot partition by days(id): transform days does not accept column id of type bigint",
        error(Expressions.days("id")));
    assertEquals("Cannot partition by bucket(4, st): column st has type struct<x:int>; partition by a column of"
        + " a primitive type", error(Expressions.bucket(4, "st")));
  }

  @Test
  public void missingAndListOrMapColumnsAreRefused() {
    assertEquals("Cannot partition by bucket(4, nope): column nope does not exist in the table schema",
        error(Expressions.bucket(4, "nope")));
    assertEquals("Cannot partition by bucket(4, m.key): column m.key is inside the map m; a partition source"
        + " column must be top-level or inside structs only", error(Expressions.bucket(4, "m.key")));
    assertEquals("Cannot partition by m.value: column m.value is inside the map m; a partition source"
        + " column must be top-level or inside structs only", error(Expressions.identity("m.value")));
    assertEquals("Cannot partition by truncate(2, tags.element): column tags.element is inside the array tags;"
        + " a partition source column must be top-level or inside structs only",
        error(apply("truncate", 2, "tags.element")));
  }

  @Test
  public void twoFieldsWithTheSameNameAreRefused() {
    assertEquals("Cannot partition by day(ts) on column ts: its partition field name ts_day is already used by"
        + " days(ts)", error(Expressions.days("ts"), apply("day", "ts")));
    assertEquals("Cannot partition by bucket(8, id) on column id: its partition field name id_bucket is already"
        + " used by bucket(16, id)", error(Expressions.bucket(16, "id"), Expressions.bucket(8, "id")));
    assertEquals("Cannot partition by days(ts) on column ts: its partition field name ts_day is already used by"
        + " days(ts) (the same transform is listed twice)", error(Expressions.days("ts"), Expressions.days("ts")));
  }

  @Test
  public void unknownTransformsAndSeveralColumnsAreRefused() {
    assertEquals("Unsupported partition transform: nope(ts) (supported: identity, bucket, truncate, years, months,"
        + " days, hours)", error(apply("nope", "ts")));
    assertEquals("Unsupported partition transform: bucket(4, id, s) (a transform must reference exactly one column)",
        error(Expressions.bucket(4, "id", "s")));
  }
}
