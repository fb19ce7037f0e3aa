package io.floe.spark.write;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.TimeTransforms;
import io.floe.format.partition.Transforms;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkSchemas;
import java.util.UUID;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.Test;

/**
 * Partition tuples of rows: source columns inside structs (a null struct gives null), and uuid
 * columns, which Spark holds as strings but the spec buckets as 16 bytes (docs/format.md, 'Bucket').
 */
public class TestPartitionKeys {
  private static final String UUID_TEXT = "f79c3e09-677c-4bbd-a479-3f349cb785e7";
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "u", Types.UUIDType.get()),
      Types.NestedField.optional(2, "st", Types.StructType.of(
          Types.NestedField.optional(4, "inner", Types.StructType.of(
              Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()))),
          Types.NestedField.optional(6, "s", Types.StringType.get()))),
      Types.NestedField.optional(3, "id", Types.LongType.get()));
  private static final StructType ROW_TYPE = (StructType) SparkSchemas.convert(SCHEMA.asStruct());

  private static PartitionKeys keys(PartitionSpec spec) {
    return new PartitionKeys(spec, SCHEMA, ROW_TYPE);
  }

  private static InternalRow row(String uuid, InternalRow st, Long id) {
    return new GenericInternalRow(new Object[] {uuid == null ? null : UTF8String.fromString(uuid), st, id});
  }

  private static InternalRow struct(Long ts, String s) {
    return new GenericInternalRow(new Object[] {
        ts == null ? null : new GenericInternalRow(new Object[] {ts}), s == null ? null : UTF8String.fromString(s)});
  }

  @Test
  public void uuidsAreBucketedAsTheirSixteenBytes() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("u", 16).identity("u").build();
    assertArrayEquals(new Object[] {12, UUID.fromString(UUID_TEXT)}, keys(spec).partition(row(UUID_TEXT, null, 1L)));
    assertArrayEquals(new Object[] {null, null}, keys(spec).partition(row(null, null, 1L)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> keys(spec).partition(row("1-2-3-4-5", null, 1L)));
    assertEquals("Invalid UUID for column u: '1-2-3-4-5'", e.getMessage());
  }

  @Test
  public void sourceColumnsInsideStructs() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA)
        .add("st.inner.ts", TimeTransforms.hour(), null)
        .add("st.s", Transforms.truncate(2), null)
        .bucket("id", 16)
        .build();
    long ts = 1_512_123_175_038_194L; // 2017-12-01T10:12:55.038194 -> hour 420034
    assertArrayEquals(new Object[] {420034, "ic", 3}, keys(spec).partition(row(null, struct(ts, "iceberg"), 34L)));
    assertArrayEquals(new Object[] {null, "ab", 3}, keys(spec).partition(row(null, struct(null, "ab"), 34L)));
    assertArrayEquals(new Object[] {null, null, null}, keys(spec).partition(row(null, null, null)));
  }

  @Test
  public void sourcesInsideListsOrMapsCannotBeWritten() {
    Schema schema = new Schema(Types.NestedField.optional(1, "tags",
        Types.ListType.ofOptional(2, Types.StringType.get())));
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("tags.element").build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PartitionKeys(spec, schema, (StructType) SparkSchemas.convert(schema.asStruct())));
    assertEquals("Cannot write partition field tags.element: its source column must be a top-level column or"
        + " inside structs", e.getMessage());
  }
}
