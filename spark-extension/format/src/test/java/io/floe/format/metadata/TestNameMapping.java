package io.floe.format.metadata;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.List;
import org.junit.Test;

public class TestNameMapping {
  @Test
  public void everyFieldMapsItsNameNestedAsTheSpecShapesIt() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "a b.\"é`", Types.StructType.of(
            Types.NestedField.optional(3, "x", Types.IntegerType.get()))),
        Types.NestedField.optional(4, "tags", Types.ListType.ofOptional(5, Types.StringType.get())),
        Types.NestedField.optional(6, "m", Types.MapType.ofOptional(7, 8, Types.StringType.get(),
            Types.LongType.get())));
    assertEquals("["
        + "{\"field-id\":1,\"names\":[\"id\"]},"
        + "{\"field-id\":2,\"names\":[\"a b.\\\"é`\"],\"fields\":[{\"field-id\":3,\"names\":[\"x\"]}]},"
        + "{\"field-id\":4,\"names\":[\"tags\"],\"fields\":[{\"field-id\":5,\"names\":[\"element\"]}]},"
        + "{\"field-id\":6,\"names\":[\"m\"],\"fields\":[{\"field-id\":7,\"names\":[\"key\"]},"
        + "{\"field-id\":8,\"names\":[\"value\"]}]}]", NameMapping.of(schema).toJson());
  }

  @Test
  public void renamesKeepOldNamesDroppedNamesMoveToNewColumnsAndJsonRoundTrips() {
    Schema v1 = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "a", Types.IntegerType.get()),
        Types.NestedField.optional(3, "s", Types.StructType.of(
            Types.NestedField.optional(4, "x", Types.IntegerType.get()))));
    NameMapping mapping = NameMapping.of(v1);
    assertEquals(mapping, NameMapping.parse(mapping.toJson()));

    // rename a -> b and s.x -> s.y: the old names still map to the ids
    Schema v2 = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "b", Types.IntegerType.get()),
        Types.NestedField.optional(3, "s", Types.StructType.of(
            Types.NestedField.optional(4, "y", Types.IntegerType.get()))));
    NameMapping renamed = mapping.updatedFor(v2);
    assertEquals(List.of("a", "b"), renamed.field("a").names());
    assertEquals(Integer.valueOf(2), renamed.field("b").fieldId());
    assertEquals(Integer.valueOf(4), renamed.field("s").child("x").fieldId());
    assertEquals(List.of("x", "y"), renamed.field("s").child("y").names());

    // drop b, add a new column named a: "a" now means the new column; "b" still the dropped one
    Schema v3 = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(3, "s", Types.StructType.of(
            Types.NestedField.optional(4, "y", Types.IntegerType.get()))),
        Types.NestedField.optional(5, "a", Types.StringType.get()));
    NameMapping reused = renamed.updatedFor(v3);
    assertEquals(Integer.valueOf(5), reused.field("a").fieldId());
    assertEquals(List.of("b"), reused.field("b").names());
    assertEquals(Integer.valueOf(2), reused.field("b").fieldId());
    assertNull(reused.field("c"));
    assertEquals(reused, NameMapping.parse(reused.toJson()));
  }

  @Test
  public void parsesMappingsWithoutIdsAndRefusesMalformedOnes() {
    NameMapping parsed = NameMapping.parse("[{\"names\":[\"ghost\"]},{\"field-id\":1,\"names\":[\"id\",\"key\"]}]");
    assertNull(parsed.field("ghost").fieldId());
    assertEquals(Integer.valueOf(1), parsed.field("key").fieldId());
    for (String bad : List.of("{}", "[1]", "[{\"field-id\":1}]", "[{\"field-id\":\"x\",\"names\":[]}]",
        "[{\"names\":[1]}]", "not json")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NameMapping.parse(bad));
      assertTrue(e.getMessage(), e.getMessage().contains("JSON") || e.getMessage().contains(NameMapping.DEFAULT));
    }
  }
}
