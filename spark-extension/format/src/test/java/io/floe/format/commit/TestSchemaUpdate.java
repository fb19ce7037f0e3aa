package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Test;

/** Schema evolution rules of the spec, applied to bare schemas and to table metadata. */
public class TestSchemaUpdate {
  /** Ids as a fresh table gets them: top level 1..7, then nested fields. */
  private static final Schema SCHEMA = new Schema(0, List.of(
      Types.NestedField.required(1, "id", Types.IntegerType.get()),
      Types.NestedField.optional(2, "f", Types.FloatType.get()),
      Types.NestedField.optional(3, "price", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(4, "point", Types.StructType.of(
          Types.NestedField.required(8, "x", Types.IntegerType.get()),
          Types.NestedField.optional(9, "y", Types.IntegerType.get(), "the y"))),
      Types.NestedField.optional(5, "pts", Types.ListType.ofRequired(10, Types.StructType.of(
          Types.NestedField.optional(12, "a", Types.IntegerType.get())))),
      Types.NestedField.optional(6, "attrs", Types.MapType.ofRequired(13, 14, Types.StringType.get(),
          Types.StructType.of(Types.NestedField.optional(15, "v", Types.IntegerType.get())))),
      Types.NestedField.optional(7, "name", Types.StringType.get())), Set.of(1));
  private static final int LAST_COLUMN_ID = 15;

  private static SchemaUpdate update() {
    return new SchemaUpdate(SCHEMA, LAST_COLUMN_ID);
  }

  private static List<String> path(String dotted) {
    return List.of(dotted.split("\\."));
  }

  private static List<String> names(Types.StructType struct) {
    return struct.fields().stream().map(Types.NestedField::name).toList();
  }

  private static String refusal(Runnable change) {
    FloeException e = assertThrows(FloeException.class, change::run);
    assertTrue(e.errorClass().name(), e.errorClass() == ErrorClass.FLOE_SCHEMA_CHANGE_INVALID
        || e.errorClass() == ErrorClass.FLOE_COLUMN_NOT_FOUND);
    return e.getMessage();
  }

  private static void assertMentions(String message, String... words) {
    for (String word : words) {
      assertTrue("'" + word + "' missing from: " + message, message.contains(word));
    }
  }

  // --- add -----------------------------------------------------------------------------------------

  @Test
  public void addedColumnsGetIdsAboveLastColumnIdEvenWhenHigherIdsWereDropped() {
    SchemaUpdate update = new SchemaUpdate(SCHEMA, 40).addColumn(path("c"), Types.StringType.get(), "new");
    Types.NestedField c = update.apply().findField("c");
    assertEquals(41, c.fieldId());
    assertTrue(c.isOptional());
    assertEquals("new", c.doc());
    assertEquals(41, update.lastColumnId());
    assertEquals("c", update.apply().columns().get(7).name());
  }

  @Test
  public void addedNestedTypeGetsFreshIdsFieldFirstThenChildrenLevelByLevel() {
    Type caller = Types.StructType.of(
        Types.NestedField.optional(1, "tags", Types.ListType.ofOptional(3, Types.StringType.get())),
        Types.NestedField.required(2, "inner", Types.StructType.of(
            Types.NestedField.optional(4, "z", Types.LongType.get()))));
    Schema after = update().addColumn(path("meta"), caller, null).apply();
    assertEquals(Integer.valueOf(16), after.idFor("meta"));
    assertEquals(Integer.valueOf(17), after.idFor("meta.tags"));
    assertEquals(Integer.valueOf(18), after.idFor("meta.inner"));
    assertEquals(Integer.valueOf(19), after.idFor("meta.tags.element"));
    assertEquals(Integer.valueOf(20), after.idFor("meta.inner.z"));
    assertTrue("nested fields keep their NOT NULL", after.findField("meta.inner").isRequired());
  }

  @Test
  public void addsInsideStructsListElementsAndMapValues() {
    SchemaUpdate update = update()
        .addColumn(path("point.z"), Types.DoubleType.get(), null)
        .addColumn(path("pts.element.b"), Types.StringType.get(), null)
        .addColumn(path("pts.c"), Types.StringType.get(), null)
        .addColumn(path("attrs.value.w"), Types.IntegerType.get(), null)
        .addColumn(path("attrs.u"), Types.IntegerType.get(), null);
    Schema after = update.apply();
    assertEquals(List.of("x", "y", "z"), names(after.findType(4).asStructType()));
    assertEquals(List.of("a", "b", "c"), names(after.findType(10).asStructType()));
    assertEquals(List.of("v", "w", "u"), names(after.findType(14).asStructType()));
    assertEquals(Integer.valueOf(16), after.idFor("point.z"));
    assertEquals(Integer.valueOf(20), after.idFor("attrs.value.u"));
    assertFalse("list element stays required", after.findType(5).asListType().isElementOptional());
    assertFalse("map value stays required", after.findType(6).asMapType().isValueOptional());
  }

  @Test
  public void firstAndAfterPlaceColumnsAmongTheirSiblings() {
    Schema after = update()
        .addColumn(path("a0"), Types.IntegerType.get(), null).moveFirst(path("a0"))
        .addColumn(path("a1"), Types.IntegerType.get(), null).moveAfter(path("a1"), "id")
        .addColumn(path("point.w"), Types.IntegerType.get(), null).moveAfter(path("point.w"), "x")
        .moveFirst(path("point.y"))
        .moveAfter(path("name"), "a0")
        .apply();
    assertEquals(List.of("a0", "name", "id", "a1", "f", "price", "point", "pts", "attrs"), names(after.asStruct()));
    assertEquals(List.of("y", "x", "w"), names(after.findType(4).asStructType()));
  }

  @Test
  public void addRefusals() {
    assertMentions(refusal(() -> update().addColumn(path("name"), Types.IntegerType.get(), null)),
        "Cannot add column name", "already exists");
    assertMentions(refusal(() -> update().addColumn(path("point.x"), Types.IntegerType.get(), null)),
        "point.x", "already exists");
    assertMentions(refusal(() -> update().addColumn(path("nope.x"), Types.IntegerType.get(), null)),
        "nope.x", "parent nope does not exist");
    assertMentions(refusal(() -> update().addColumn(path("name.x"), Types.IntegerType.get(), null)),
        "name.x", "string, not a struct");
    assertMentions(refusal(() -> update().addRequiredColumn(path("c"), Types.IntegerType.get(), null)),
        "Cannot add required column c", "nullable");
    assertMentions(refusal(() -> update().moveAfter(path("point.x"), "id")),
        "Cannot move column point.x after id", "not a field of the same struct");
    assertMentions(refusal(() -> update().moveAfter(path("id"), "id")), "after itself");
  }

  @Test
  public void mapKeysNeverChange() {
    Schema withStructKey = new Schema(0, List.of(Types.NestedField.optional(1, "m", Types.MapType.ofOptional(2, 3,
        Types.StructType.of(Types.NestedField.required(4, "k", Types.IntegerType.get())), Types.StringType.get()))));
    SchemaUpdate update = new SchemaUpdate(withStructKey, 4);
    assertMentions(refusal(() -> update.addColumn(path("m.key.k2"), Types.IntegerType.get(), null)), "map keys");
    assertMentions(refusal(() -> update.renameColumn(path("m.key.k"), "kk")), "map keys");
    assertMentions(refusal(() -> update.deleteColumn(path("m.key.k"))), "map keys");
    assertMentions(refusal(() -> update.updateColumnType(path("m.key.k"), Types.LongType.get())), "map keys");
    assertMentions(refusal(() -> update.makeColumnOptional(path("m.key.k"))), "map keys");
    assertSame(withStructKey, update.apply());
  }

  // --- drop ----------------------------------------------------------------------------------------

  @Test
  public void droppedThenReAddedNameIsANewColumn() {
    SchemaUpdate update = update().deleteColumn(path("name"));
    assertFalse(update.hasColumn(path("name")));
    update.addColumn(path("name"), Types.StringType.get(), null);
    assertEquals(Integer.valueOf(16), update.apply().idFor("name"));
    assertNull(update.apply().findField(7));
  }

  @Test
  public void dropsNestedFieldsAndWholeStructs() {
    Schema after = update().deleteColumn(path("point.y")).deleteColumn(path("pts")).apply();
    assertEquals(List.of("x"), names(after.findType(4).asStructType()));
    assertNull(after.findField(5));
    assertNull("nested fields go with their column", after.findField(12));
  }

  @Test
  public void dropRefusals() {
    assertMentions(refusal(() -> update().deleteColumn(path("nope"))), "Cannot drop column nope", "no such column");
    assertMentions(refusal(() -> update().deleteColumn(path("pts.element"))), "pts.element", "element of a list");
    assertMentions(refusal(() -> update().deleteColumn(path("attrs.value"))), "attrs.value", "value of a map");
    assertMentions(refusal(() -> update().deleteColumn(path("id"))), "Cannot drop column id", "identifier field");
    Schema nestedIdentifier = new Schema(0, SCHEMA.columns(), Set.of(8));
    assertMentions(refusal(() -> new SchemaUpdate(nestedIdentifier, 15).deleteColumn(path("point"))),
        "Cannot drop column point", "it contains point.x", "identifier field");
  }

  @Test
  public void leavingAStructWithoutFieldsIsRefusedWhenApplied() {
    SchemaUpdate update = update().deleteColumn(path("pts.element.a"));
    assertMentions(refusal(update::apply), "pts", "drop pts instead");
    SchemaUpdate allButId = update();
    for (String name : names(SCHEMA.asStruct())) {
      if (!name.equals("id")) {
        allButId.deleteColumn(path(name));
      }
    }
    assertEquals(List.of("id"), names(allButId.apply().asStruct()));
    // dropping everything then adding, as Spark's REPLACE COLUMNS does, is fine
    Schema noIdentifiers = new Schema(0, SCHEMA.columns());
    SchemaUpdate replace = new SchemaUpdate(noIdentifiers, 15);
    for (String name : names(SCHEMA.asStruct())) {
      replace.deleteColumn(path(name));
    }
    assertMentions(refusal(replace::apply), "every column");
    replace.addColumn(path("id"), Types.LongType.get(), null);
    assertEquals(Integer.valueOf(16), replace.apply().idFor("id"));
  }

  @Test
  public void dropOfAColumnTheCurrentSpecUsesIsRefusedNamingThePartitionField() {
    Schema schema = new Schema(0, List.of(
        Types.NestedField.optional(1, "x", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StructType.of(Types.NestedField.optional(4, "d", Types.DateType.get()))),
        Types.NestedField.optional(3, "other", Types.StringType.get())));
    PartitionSpec spec = PartitionSpec.builderFor(schema).bucket("x", 8).build();
    TableMetadata table = TableMetadata.newTableMetadata(schema, spec, SortOrder.unsorted(), "file:/t", Map.of(), 2);
    String message = refusal(() -> SchemaUpdate.of(table).deleteColumn(path("x")));
    assertMentions(message, "Cannot drop column x", "partition field x_bucket (bucket[8])", "DROP PARTITION FIELD x_bucket");

    PartitionSpec nested = PartitionSpec.builderFor(schema).add("s.d", io.floe.format.partition.Transforms
        .fromString("day"), "d_day").build();
    TableMetadata byDay = TableMetadata.newTableMetadata(schema, nested, SortOrder.unsorted(), "file:/t", Map.of(), 2);
    assertMentions(refusal(() -> SchemaUpdate.of(byDay).deleteColumn(path("s"))), "Cannot drop column s", "d_day");
    // renaming the source keeps partitioning: specs reference ids
    Schema renamed = SchemaUpdate.of(table).renameColumn(path("x"), "y").apply();
    assertEquals(Integer.valueOf(1), renamed.idFor("y"));
    assertEquals("other", SchemaUpdate.of(table).deleteColumn(path("s")).apply().columns().get(1).name());
  }

  @Test
  public void dropOfASortColumnIsRefused() {
    Schema schema = new Schema(0, List.of(Types.NestedField.optional(1, "a", Types.LongType.get()),
        Types.NestedField.optional(2, "b", Types.LongType.get())));
    SortOrder order = SortOrder.builderFor(schema).asc("b").build();
    TableMetadata table = TableMetadata.newTableMetadata(schema, PartitionSpec.unpartitioned(), order, "file:/t",
        Map.of(), 2);
    assertMentions(refusal(() -> SchemaUpdate.of(table).deleteColumn(path("b"))), "Cannot drop column b", "sort order");
  }

  // --- rename --------------------------------------------------------------------------------------

  @Test
  public void renamesKeepIds() {
    Schema after = update().renameColumn(path("name"), "title").renameColumn(path("point.y"), "why")
        .renameColumn(path("pts.element.a"), "aa").apply();
    assertEquals(Integer.valueOf(7), after.idFor("title"));
    assertEquals(Integer.valueOf(9), after.idFor("point.why"));
    assertEquals("the y", after.findField(9).doc());
    assertEquals(Integer.valueOf(12), after.idFor("pts.element.aa"));
    assertEquals(SCHEMA.identifierFieldIds(), after.identifierFieldIds());
  }

  @Test
  public void renameRefusals() {
    assertMentions(refusal(() -> update().renameColumn(path("name"), "f")), "Cannot rename column name to f",
        "already exists");
    assertMentions(refusal(() -> update().renameColumn(path("nope"), "x")), "Cannot rename column nope");
    assertMentions(refusal(() -> update().renameColumn(path("pts.element"), "x")), "pts.element");
    assertMentions(refusal(() -> update().renameColumn(path("name"), "")), "empty name");
  }

  // --- types ---------------------------------------------------------------------------------------

  @Test
  public void onlyTheSpecsPromotionsAreAllowed() {
    assertTrue(SchemaUpdate.isPromotionAllowed(Types.IntegerType.get(), Types.LongType.get()));
    assertTrue(SchemaUpdate.isPromotionAllowed(Types.FloatType.get(), Types.DoubleType.get()));
    assertTrue(SchemaUpdate.isPromotionAllowed(Types.DecimalType.of(9, 2), Types.DecimalType.of(38, 2)));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.DecimalType.of(9, 2), Types.DecimalType.of(12, 3)));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.DecimalType.of(9, 2), Types.DecimalType.of(8, 2)));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.LongType.get(), Types.IntegerType.get()));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.IntegerType.get(), Types.DoubleType.get()));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.IntegerType.get(), Types.StringType.get()));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.DoubleType.get(), Types.FloatType.get()));
    assertFalse(SchemaUpdate.isPromotionAllowed(Types.DateType.get(), Types.TimestampType.withoutZone()));
  }

  @Test
  public void promotionsKeepIdsNullabilityAndDocs() {
    Schema after = update()
        .updateColumnType(path("id"), Types.LongType.get())
        .updateColumnType(path("f"), Types.DoubleType.get())
        .updateColumnType(path("price"), Types.DecimalType.of(20, 2))
        .updateColumnType(path("point.y"), Types.LongType.get())
        .updateColumnType(path("pts.element.a"), Types.LongType.get())
        .apply();
    assertEquals(Types.NestedField.required(1, "id", Types.LongType.get()), after.findField(1));
    assertEquals(Types.DoubleType.get(), after.findType(2));
    assertEquals(Types.DecimalType.of(20, 2), after.findType(3));
    assertEquals(Types.NestedField.optional(9, "y", Types.LongType.get(), "the y"), after.findField(9));
    assertEquals(Types.LongType.get(), after.findType(12));
    Schema ints = new Schema(0, List.of(Types.NestedField.optional(1, "l", Types.ListType.ofOptional(2,
        Types.IntegerType.get())), Types.NestedField.optional(3, "m", Types.MapType.ofOptional(4, 5,
        Types.StringType.get(), Types.FloatType.get()))));
    Schema promoted = new SchemaUpdate(ints, 5).updateColumnType(path("l.element"), Types.LongType.get())
        .updateColumnType(path("m.value"), Types.DoubleType.get()).apply();
    assertEquals(Types.ListType.ofOptional(2, Types.LongType.get()), promoted.findType(1));
    assertEquals(Types.MapType.ofOptional(4, 5, Types.StringType.get(), Types.DoubleType.get()), promoted.findType(3));
  }

  @Test
  public void refusedTypeChangesNameColumnOldAndNewType() {
    assertMentions(refusal(() -> update().updateColumnType(path("id"), Types.StringType.get())),
        "Cannot change column id from int to string", "int -> long");
    assertMentions(refusal(() -> update().updateColumnType(path("price"), Types.DecimalType.of(12, 3))),
        "price", "decimal(9, 2)", "decimal(12, 3)");
    assertMentions(refusal(() -> update().updateColumnType(path("point.x"), Types.DoubleType.get())),
        "point.x", "int", "double");
    assertMentions(refusal(() -> update().updateColumnType(path("point"), Types.StringType.get())),
        "point", "struct");
    assertSame("the same type is a no-op", SCHEMA, update().updateColumnType(path("id"), Types.IntegerType.get())
        .apply());
  }

  // --- nullability, comments -----------------------------------------------------------------------

  @Test
  public void requiredColumnsMayBecomeOptionalNeverTheOtherWay() {
    Schema after = update().makeColumnOptional(path("point.x")).makeColumnOptional(path("pts.element"))
        .makeColumnOptional(path("attrs.value")).apply();
    assertTrue(after.findField(8).isOptional());
    assertTrue(after.findType(5).asListType().isElementOptional());
    assertTrue(after.findType(6).asMapType().isValueOptional());
    assertMentions(refusal(() -> update().requireColumn(path("name"))), "Cannot set NOT NULL on column name");
    assertSame(SCHEMA, update().requireColumn(path("point.x")).apply());
    assertMentions(refusal(() -> update().makeColumnOptional(path("id"))), "id", "identifier field");
  }

  @Test
  public void commentsAreSetAndRemoved() {
    Schema after = update().updateColumnDoc(path("name"), "who").updateColumnDoc(path("point.y"), null).apply();
    assertEquals("who", after.findField(7).doc());
    assertNull(after.findField(9).doc());
    assertMentions(refusal(() -> update().updateColumnDoc(path("pts.element"), "x")), "pts.element");
  }

  // --- names, purity, metadata ---------------------------------------------------------------------

  @Test
  public void namesMatchCaseInsensitivelyWhenUnambiguous() {
    Schema after = update().renameColumn(path("POINT.Y"), "yy").apply();
    assertEquals(Integer.valueOf(9), after.idFor("point.yy"));
  }

  @Test
  public void theBaseSchemaIsNeverChanged() {
    Schema before = new Schema(0, SCHEMA.columns(), SCHEMA.identifierFieldIds());
    update().addColumn(path("c"), Types.IntegerType.get(), null).deleteColumn(path("name"))
        .renameColumn(path("f"), "g").updateColumnType(path("id"), Types.LongType.get()).apply();
    assertEquals(before, SCHEMA);
  }

  @Test
  public void applyToCommitsANewSchemaAndMovesColumnProperties() {
    Schema schema = new Schema(0, List.of(Types.NestedField.optional(1, "a", Types.LongType.get()),
        Types.NestedField.optional(2, "b", Types.LongType.get()),
        Types.NestedField.optional(3, "s", Types.StructType.of(Types.NestedField.optional(4, "c",
            Types.StringType.get())))));
    TableMetadata base = TableMetadata.newTableMetadata(schema, PartitionSpec.unpartitioned(), SortOrder.unsorted(),
        "file:/t", Map.of("write.metadata.metrics.column.a", "full", "write.metadata.metrics.column.b", "none",
            "write.metadata.metrics.column.s.c", "counts", "owner", "me"), 2);
    SchemaUpdate update = SchemaUpdate.of(base).renameColumn(path("a"), "a2").deleteColumn(path("b"))
        .renameColumn(path("s"), "t").addColumn(path("d"), Types.IntegerType.get(), null);
    TableMetadata next = update.applyTo(TableMetadata.buildFrom(base)).build();
    assertEquals(1, next.currentSchemaId());
    assertEquals(2, next.schemas().size());
    assertEquals(5, next.lastColumnId());
    assertEquals(Integer.valueOf(5), next.schema().idFor("d"));
    assertEquals(Map.of("write.metadata.metrics.column.a2", "full", "write.metadata.metrics.column.t.c", "counts",
        "owner", "me"), next.properties());
    assertNotEquals(base.schema(), next.schema());
    assertEquals("the old schema stays for old snapshots", base.schema(), next.schemasById().get(0));
  }
}
