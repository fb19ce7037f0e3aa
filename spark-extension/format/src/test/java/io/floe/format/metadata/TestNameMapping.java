package io.floe.format.metadata;

import static org.junit.Assert.assertEquals;

import io.floe.format.types.Schema;
import io.floe.format.types.Types;
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
        + "{\"field-id\":8,\"names\":[\"value\"]}]}]", NameMapping.of(schema));
  }
}
