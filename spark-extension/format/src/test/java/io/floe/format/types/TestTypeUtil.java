package io.floe.format.types;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

public class TestTypeUtil {
  private static final Schema NESTED = new Schema(
      Types.NestedField.required(100, "id", Types.LongType.get()),
      Types.NestedField.optional(101, "tags", Types.ListType.ofOptional(102, Types.StringType.get())),
      Types.NestedField.optional(103, "props", Types.MapType.ofOptional(104, 105, Types.StringType.get(),
          Types.StructType.of(Types.NestedField.optional(106, "a", Types.IntegerType.get())))),
      Types.NestedField.optional(107, "s", Types.StructType.of(Types.NestedField.optional(108, "b",
          Types.StringType.get()))));

  @Test
  public void freshIdsAreTopLevelFirstThenChildrenLevelByLevel() {
    AtomicInteger next = new AtomicInteger();
    Schema fresh = TypeUtil.assignFreshIds(0, NESTED, next::incrementAndGet);
    assertEquals(Integer.valueOf(1), fresh.idFor("id"));
    assertEquals(Integer.valueOf(2), fresh.idFor("tags"));
    assertEquals(Integer.valueOf(3), fresh.idFor("props"));
    assertEquals(Integer.valueOf(4), fresh.idFor("s"));
    assertEquals(Integer.valueOf(5), fresh.idFor("tags.element"));
    assertEquals(Integer.valueOf(6), fresh.idFor("props.key"));
    assertEquals(Integer.valueOf(7), fresh.idFor("props.value"));
    assertEquals(Integer.valueOf(8), fresh.idFor("props.value.a"));
    assertEquals(Integer.valueOf(9), fresh.idFor("s.b"));
  }

  @Test
  public void assignIdsReusesIdsOfSameNamedFieldsAndNumbersTheRestAfterTheLast() {
    Schema base = TypeUtil.assignFreshIds(0, NESTED, new AtomicInteger()::incrementAndGet);
    Schema replacement = new Schema(
        Types.NestedField.optional(1, "s", Types.StructType.of(
            Types.NestedField.optional(2, "b", Types.StringType.get()),
            Types.NestedField.optional(3, "c", Types.IntegerType.get()))),
        Types.NestedField.optional(4, "id", Types.StringType.get()),
        Types.NestedField.optional(5, "new", Types.DoubleType.get()));
    AtomicInteger last = new AtomicInteger(base.highestFieldId());
    Schema assigned = TypeUtil.assignIds(0, replacement, base, last::incrementAndGet);
    assertEquals(base.idFor("s"), assigned.idFor("s"));
    assertEquals(base.idFor("s.b"), assigned.idFor("s.b"));
    assertEquals(base.idFor("id"), assigned.idFor("id"));
    assertEquals(Integer.valueOf(10), assigned.idFor("new"));
    assertEquals(Integer.valueOf(11), assigned.idFor("s.c"));
  }

  @Test
  public void columnPathKeepsDotsInsideNamesAsOnePart() {
    Schema schema = new Schema(
        Types.NestedField.optional(1, "v1.2", Types.IntegerType.get()),
        Types.NestedField.optional(2, "..", Types.IntegerType.get()),
        Types.NestedField.optional(3, "s.t", Types.StructType.of(Types.NestedField.optional(4, "a.b",
            Types.StringType.get()))),
        Types.NestedField.optional(5, "l", Types.ListType.ofOptional(6, Types.StringType.get())));
    assertEquals(List.of("v1.2"), schema.findColumnPath(1));
    assertEquals(List.of(".."), schema.findColumnPath(2));
    assertEquals(List.of("s.t", "a.b"), schema.findColumnPath(4));
    assertNull("not reachable through structs only", schema.findColumnPath(6));
    assertNull(schema.findColumnPath(99));
  }

  @Test
  public void duplicateFullNameFindsADottedColumnThatShadowsAStructField() {
    assertNull(TypeUtil.duplicateFullName(NESTED.asStruct()));
    assertNull(TypeUtil.duplicateFullName(Types.StructType.of(
        Types.NestedField.optional(1, "s.c", Types.IntegerType.get()),
        Types.NestedField.optional(2, "s", Types.StructType.of(
            Types.NestedField.optional(3, "b", Types.IntegerType.get()))))));
    assertEquals("s.b", TypeUtil.duplicateFullName(Types.StructType.of(
        Types.NestedField.optional(2, "s", Types.StructType.of(
            Types.NestedField.optional(3, "b", Types.IntegerType.get()))),
        Types.NestedField.optional(1, "s.b", Types.IntegerType.get()))));
    // a list element named like a dotted sibling: "t.element"
    assertEquals("t.element", TypeUtil.duplicateFullName(Types.StructType.of(
        Types.NestedField.optional(1, "t", Types.ListType.ofOptional(2, Types.StringType.get())),
        Types.NestedField.optional(3, "t.element", Types.IntegerType.get()))));
  }
}
