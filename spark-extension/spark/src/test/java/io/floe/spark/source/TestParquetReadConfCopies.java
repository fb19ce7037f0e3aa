package io.floe.spark.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import io.floe.format.metadata.NameMapping;
import io.floe.spark.util.SparkSchemas;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.Test;

/**
 * The configured copies of a read's Hadoop configuration: files that look alike (same file schema,
 * read schema and name mapping) share one copy, and every difference that changes a setting gets a
 * copy of its own, with the settings of a copy made for that file alone. The base configuration
 * is never changed.
 */
public class TestParquetReadConfCopies {
  private static final MessageType WITH_IDS = MessageTypeParser.parseMessageType(
      "message m { optional int64 id = 1; optional int64 v = 2; }");
  private static final MessageType WITHOUT_IDS = MessageTypeParser.parseMessageType(
      "message m { optional int64 key; optional int64 v; }");
  private static final StructType SCHEMA = new StructType(new StructField[] {field("id", 1), field("v", 2)});
  private static final NameMapping MAPPING = NameMapping.parse(
      "[{\"field-id\": 1, \"names\": [\"id\", \"key\"]}, {\"field-id\": 2, \"names\": [\"v\"]}]");

  @Test
  public void filesThatLookAlikeShareOneCopy() {
    Configuration base = new Configuration(false);
    base.set("fs.custom.setting", "kept");
    Filter[] filters = {new GreaterThan("id", 5L)};
    ParquetReadConf.Copies copies = new ParquetReadConf.Copies();
    Configuration first = copies.get(base, filters, SCHEMA, null, WITH_IDS, true);
    assertSame(first, copies.get(base, filters, SCHEMA, null, parse(WITH_IDS), true));
    assertEquals("kept", first.get("fs.custom.setting"));
    assertEquals(SCHEMA.json(), first.get(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA()));
    assertEquals("a predicate only for skipping", "gt(id, 5)",
        predicate(first));
    assertNull("the base is not changed", base.get(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA()));
  }

  @Test
  public void everyDifferenceThatChangesASettingGetsItsOwnCopy() {
    Configuration base = new Configuration(false);
    Filter[] filters = {new GreaterThan("id", 5L)};
    ParquetReadConf.Copies copies = new ParquetReadConf.Copies();
    Configuration withIds = copies.get(base, filters, SCHEMA, null, WITH_IDS, true);
    // a file without ids is read through the name mapping: its requested schema names "key"
    Configuration mapped = copies.get(base, filters, SCHEMA, MAPPING, WITHOUT_IDS, false);
    assertNotSame(withIds, mapped);
    String requested = mapped.get(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA());
    assertEquals("key", ((StructType) DataType.fromJson(requested)).fields()[0].name());
    assertEquals("gt(key, 5)", predicate(mapped));
    assertNotSame("another read schema", withIds,
        copies.get(base, filters, new StructType(new StructField[] {field("id", 1)}), null, WITH_IDS, true));
    assertNotSame("other filters (by identity)", withIds,
        copies.get(base, new Filter[] {new GreaterThan("id", 5L)}, SCHEMA, null, WITH_IDS, true));
    assertNotSame("another base configuration", withIds,
        copies.get(new Configuration(false), filters, SCHEMA, null, WITH_IDS, true));
    assertNull("no filters, no predicate",
        predicate(copies.get(base, null, SCHEMA, null, WITH_IDS, true)));
  }

  /** The skipping predicate a copy tells Parquet, as text; null when none. */
  private static String predicate(Configuration conf) {
    FilterCompat.Filter filter = ParquetInputFormat.getFilter(conf);
    return filter instanceof FilterCompat.FilterPredicateCompat compat
        ? String.valueOf(compat.getFilterPredicate()) : null;
  }

  private static MessageType parse(MessageType type) {
    return MessageTypeParser.parseMessageType(type.toString()); // equal, not the same object
  }

  private static StructField field(String name, long id) {
    return new StructField(name, DataTypes.LongType, true,
        new MetadataBuilder().putLong(SparkSchemas.FIELD_ID_KEY, id).build());
  }
}
