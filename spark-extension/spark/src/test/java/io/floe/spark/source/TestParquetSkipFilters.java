package io.floe.spark.source;

import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import io.floe.spark.util.SparkSchemas;
import java.util.Map;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.Test;

/**
 * Filters rewritten to a file's column names for Parquet's skipping: a filter may only become
 * weaker (an AND side dropped), never stricter, so nothing is dropped under a negation; columns are
 * found by field id, and a file column that only shares a name is never used.
 */
public class TestParquetSkipFilters {
  private static final Map<String, String> NAMES = Map.of("key", "id", "v", "v");

  @Test
  public void andKeepsTheSideItCanRewriteOnlyOutsideANegation() {
    Filter unknown = new EqualTo("gone", 1);
    Filter and = new And(new GreaterThan("key", 5L), unknown);
    assertEquals(new GreaterThan("id", 5L), ParquetSkipFilters.rename(and, NAMES, false));
    assertNull("NOT (key > 5 AND gone = 1) is not NOT (key > 5)",
        ParquetSkipFilters.rename(new Not(and), NAMES, false));
    assertEquals(new Not(new And(new GreaterThan("id", 5L), new IsNull("v"))), ParquetSkipFilters.rename(
        new Not(new And(new GreaterThan("key", 5L), new IsNull("v"))), NAMES, false));
  }

  @Test
  public void orNeedsBothSidesAndUnknownFiltersAreDropped() {
    assertNull(ParquetSkipFilters.rename(new Or(new EqualTo("key", 1L), new EqualTo("gone", 2)), NAMES, false));
    assertEquals(new Or(new EqualTo("id", 1L), new EqualTo("v", 2L)),
        ParquetSkipFilters.rename(new Or(new EqualTo("key", 1L), new EqualTo("v", 2L)), NAMES, false));
    assertNull(ParquetSkipFilters.rename(new StringEndsWith("key", "x"), NAMES, false));
  }

  @Test
  public void columnsAreFoundByFieldIdAndANameSharedWithAnotherColumnIsNeverUsed() {
    MessageType file = MessageTypeParser.parseMessageType(
        "message m { optional int64 id = 1; optional int64 v = 2; optional int64 w = 5; }");
    // the table renamed id to key, dropped v (id 2) and added a new v (id 3)
    StructType requested = new StructType(new StructField[] {field("key", 1), field("v", 3), field("w", 5)});
    Map<String, String> names = ParquetSkipFilters.fileNames(requested, requested, file, true);
    assertEquals(Map.of("key", "id", "w", "w"), names);
    assertNull(ParquetSkipFilters.predicate(new Filter[] {new IsNull("v")}, requested, requested, file, true));
    FilterPredicate predicate = ParquetSkipFilters.predicate(
        new Filter[] {new IsNull("v"), new GreaterThan("key", 7L)}, requested, requested, file, true);
    assertNotNull(predicate);
    assertEquals("gt(id, 7)", predicate.toString());
    // a file without ids is matched by the names it is read with (the name mapping's)
    MessageType noIds = MessageTypeParser.parseMessageType("message m { optional int64 id; optional int64 v; }");
    StructType read = new StructType(new StructField[] {field("id", 1), field("v" + NameMappedColumns.UNMAPPED_SUFFIX, 3),
        field("w", 5)});
    assertEquals(Map.of("key", "id"), ParquetSkipFilters.fileNames(requested, read, noIds, false));
  }

  @Test
  public void oddColumnNamesAreQuotedAsSparksFiltersNameThem() {
    MessageType file = org.apache.parquet.schema.Types.buildMessage()
        .optional(INT64).id(1).named("a b")
        .optional(INT64).id(2).named("x.y")
        .optional(INT64).id(3).named("ünï")
        .named("m");
    StructType requested = new StructType(new StructField[] {field("a b", 1), field("x.y", 2), field("ünï", 3)});
    Predicate[] v2 = new Predicate[] {
        greaterThan("a b", 7L), greaterThan("x.y", 8L), greaterThan("ünï", 9L)};
    Filter[] v1 = org.apache.spark.sql.internal.connector.PredicateUtils$.MODULE$.toV1(v2);
    assertEquals(3, v1.length);
    FilterPredicate predicate = ParquetSkipFilters.predicate(v1, requested, requested, file, true);
    assertEquals("and(and(gt(a b, 7), gt(x.y, 8)), gt(ünï, 9))", String.valueOf(predicate));
    // a nested field's x.y (unquoted) is not the top-level column `x.y`
    assertNull(ParquetSkipFilters.predicate(new Filter[] {new GreaterThan("x.y", 8L)}, requested, requested, file, true));
  }

  private static Predicate greaterThan(String column, long value) {
    return new Predicate(">", new org.apache.spark.sql.connector.expressions.Expression[] {
        org.apache.spark.sql.connector.expressions.FieldReference.column(column),
        org.apache.spark.sql.connector.expressions.LiteralValue.apply(value, DataTypes.LongType)});
  }

  private static StructField field(String name, long id) {
    return new StructField(name, DataTypes.LongType, true,
        new MetadataBuilder().putLong(SparkSchemas.FIELD_ID_KEY, id).build());
  }
}
