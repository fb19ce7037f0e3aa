package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.List;
import org.junit.Test;

/** Index columns resolve through structs, never into lists or maps, and say which list or map is in the way. */
public class TestIndexColumns {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "s", Types.StructType.of(
          Types.NestedField.optional(2, "a", Types.IntegerType.get()),
          Types.NestedField.optional(3, "arr", Types.ListType.ofOptional(4, Types.StructType.of(
              Types.NestedField.optional(5, "y", Types.IntegerType.get())))))),
      Types.NestedField.optional(6, "m", Types.MapType.ofOptional(7, 8, Types.StringType.get(),
          Types.StructType.of(Types.NestedField.optional(9, "x", Types.LongType.get())))));

  @Test
  public void nestedStructFieldsResolveByNameParts() {
    assertEquals(2, IndexColumns.resolve(SCHEMA, List.of("s", "a")).fieldId());
    assertEquals(2, IndexColumns.resolve(SCHEMA, List.of("S", "A")).fieldId());
    assertEquals(List.of("s", "a"), IndexColumns.path(SCHEMA, 2));
    assertNull(IndexColumns.collectionOnPath(SCHEMA, List.of("s", "a")));
  }

  @Test
  public void fieldsInsideListsAndMapsNameTheCollectionInTheWay() {
    assertNull(IndexColumns.resolve(SCHEMA, List.of("s", "arr", "y")));
    assertEquals(List.of("s", "arr"), IndexColumns.collectionOnPath(SCHEMA, List.of("s", "arr", "y")));
    assertEquals(List.of("m"), IndexColumns.collectionOnPath(SCHEMA, List.of("m", "value", "x")));
    assertNull("a whole list column is a type error, not a path error",
        IndexColumns.collectionOnPath(SCHEMA, List.of("s", "arr")));
    assertNull(IndexColumns.collectionOnPath(SCHEMA, List.of("nope", "x")));
  }
}
