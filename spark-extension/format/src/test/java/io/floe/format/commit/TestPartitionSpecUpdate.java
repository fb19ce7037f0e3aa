package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.sql.TransformTerm;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.Test;

/**
 * Partition spec evolution with Iceberg's rules, committed through TableMetadataBuilder so that the
 * field ids are the table's: v2 drops fields and reuses ids of (source, transform) pairs seen
 * before; v1 keeps dropped fields as void fields in place.
 */
public class TestPartitionSpecUpdate {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(4, "d", Types.DateType.get()));

  private static TableMetadata table(int formatVersion) {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
    return TableMetadata.newTableMetadata(SCHEMA, spec, SortOrder.unsorted(), "file:///tmp/t", Map.of(),
        formatVersion);
  }

  private static TableMetadata evolve(TableMetadata base, UnaryOperator<PartitionSpecUpdate> change) {
    PartitionSpec spec = change.apply(new PartitionSpecUpdate(base, "floe.db.t")).apply();
    return TableMetadata.buildFrom(base).setDefaultPartitionSpec(spec).build();
  }

  private static TransformTerm t(String text) {
    return TransformTerm.parse(text);
  }

  private static String spec(TableMetadata m) {
    return PartitionSpecUpdate.describe(m.spec(), m.schema());
  }

  @Test
  public void v2DropRemovesAndReAddReusesTheFieldId() {
    TableMetadata m = evolve(table(2), u -> u.add(t("bucket(8, id)"), null));
    assertEquals("[1000: category: identity(category), 1001: id_bucket_8: bucket[8](id)]", spec(m));
    m = evolve(m, u -> u.remove(t("category")));
    assertEquals("[1001: id_bucket_8: bucket[8](id)]", spec(m));
    m = evolve(m, u -> u.remove(t("ID_Bucket_8")).add(t("days(ts)"), null));
    assertEquals("[1002: ts_day: day(ts)]", spec(m));
    m = evolve(m, u -> u.add(t("bucket(8, id)"), "b"));
    assertEquals("[1002: ts_day: day(ts), 1001: b: bucket[8](id)]", spec(m));
    m = evolve(m, u -> u.add(t("category"), null));
    assertEquals("[1002: ts_day: day(ts), 1001: b: bucket[8](id), 1000: category: identity(category)]", spec(m));
    assertEquals(1002, m.lastAssignedPartitionId());
  }

  @Test
  public void v2ReplaceWithTheSameNameFreesIt() {
    TableMetadata m = evolve(table(2), u -> u.add(t("days(ts)"), "when"));
    m = evolve(m, u -> u.remove(t("when")).add(t("hours(ts)"), "when"));
    assertEquals("[1000: category: identity(category), 1002: when: hour(ts)]", spec(m));
  }

  @Test
  public void v1DropLeavesAVoidFieldThatGivesUpItsName() {
    TableMetadata m = evolve(table(1), u -> u.add(t("truncate(2, category)"), null));
    m = evolve(m, u -> u.remove(t("category")));
    assertEquals("[1000: category: void(category), 1001: category_trunc_2: truncate[2](category)]", spec(m));
    m = evolve(m, u -> u.remove(t("truncate(2, category)")).add(t("category"), null));
    assertEquals("[1000: category_1000: void(category), 1001: category_trunc_2: void(category), "
        + "1002: category: identity(category)]", spec(m));
  }

  @Test
  public void problemsNameTableFieldAndTransform() {
    TableMetadata base = evolve(table(2), u -> u.add(t("days(d)"), null));
    assertError(base, u -> u.add(t("hours(d)"), null),
        "Cannot add partition field hours(d) to table floe.db.t: transform hour cannot be applied to column d");
    assertError(base, u -> u.add(t("bucket(4, nope)"), null), "column nope does not exist");
    assertError(base, u -> u.add(t("months(d)"), null), "redundant with field d_day (day(d))");
    assertError(base, u -> u.add(t("days(d)"), null), "already partitioned by it, as field d_day");
    assertError(base, u -> u.add(t("bucket(4, id)"), "d_day"), "duplicate partition field name d_day");
    assertError(base, u -> u.add(t("bucket(4, id)"), "ts"), "name ts is a column of the table");
    assertError(base, u -> u.remove(t("hours(d)")),
        "Cannot drop partition field hours(d) from table floe.db.t: the table is not partitioned by it");
    assertError(base, u -> u.remove(t("nope")), "no partition field with this name or identity column");
  }

  private static void assertError(TableMetadata base, UnaryOperator<PartitionSpecUpdate> change, String expected) {
    FloeException e = assertThrows(FloeException.class, () -> evolve(base, change));
    assertTrue(e.errorClass().name(), e.errorClass() == ErrorClass.FLOE_PARTITIONING_INVALID
        || e.errorClass() == ErrorClass.FLOE_COLUMN_NOT_FOUND);
    assertTrue(e.getMessage(), e.getMessage().contains(expected));
  }
}
