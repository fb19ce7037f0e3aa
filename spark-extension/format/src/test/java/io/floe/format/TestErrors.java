package io.floe.format;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.CatalogErrors;
import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.ValidationException;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

/** The error classes and the area factories: classes are well formed, messages name the object. */
public class TestErrors {
  @Test
  public void everyErrorClassHasAFloeNameASqlStateAndADescription() {
    Set<String> names = new HashSet<>();
    for (ErrorClass c : ErrorClass.values()) {
      assertTrue(c.name(), c.name().matches("FLOE_[A-Z_]+"));
      assertTrue(c + " " + c.sqlState(), c.sqlState().matches("[0-9A-Z]{5}"));
      assertTrue(c.name(), !c.description().isBlank());
      assertTrue(c.name(), names.add(c.name().toLowerCase(java.util.Locale.ROOT)));
    }
  }

  @Test
  public void everyCatalogKindHasItsOwnErrorClass() {
    Set<ErrorClass> seen = new HashSet<>();
    for (CatalogException.Kind kind : CatalogException.Kind.values()) {
      assertTrue(kind.name(), seen.add(kind.errorClass()));
    }
    CatalogException e = CatalogErrors.noSuchTable(TableIdentifier.of(List.of("db"), "t"));
    assertEquals(ErrorClass.FLOE_TABLE_NOT_FOUND, e.errorClass());
    assertEquals("db.t", e.parameters().get("table"));
    assertTrue(e.getMessage(), e.getMessage().contains("db.t"));
  }

  @Test
  public void existingExceptionTypesAreFloeExceptionsWithTheirClass() {
    assertEquals(ErrorClass.FLOE_COMMIT_CONFLICT, new CommitFailedException("stale base").errorClass());
    assertEquals(ErrorClass.FLOE_CONCURRENT_CHANGE_CONFLICT, new ValidationException("conflict").errorClass());
    CommitStateUnknownException unknown = new CommitStateUnknownException("Cannot commit db.t", new IOException());
    assertEquals(ErrorClass.FLOE_COMMIT_STATE_UNKNOWN, unknown.errorClass());
    assertTrue(unknown.getMessage(), unknown.getMessage().contains("Refresh the table"));
    assertEquals(ErrorClass.FLOE_FILE_INVALID, new FloeFormatException("Cannot read f.avro").errorClass());
  }

  @Test
  public void schemaErrorsNameTheTableAndColumn() {
    FloeException e = SchemaErrors.overwriteNotOnIdentityPartition("floe.db.t", "name = 'one'", "name", List.of("day"));
    assertEquals(ErrorClass.FLOE_OVERWRITE_CONDITION_INVALID, e.errorClass());
    assertTrue(e.getMessage(), e.getMessage().startsWith("Cannot overwrite table floe.db.t where name = 'one': "
        + "column name is not an identity partition column"));
    assertTrue(e.getMessage(), e.getMessage().contains("(day)"));
    assertEquals("floe.db.t", e.parameters().get("table"));
    assertEquals("name", e.parameters().get("column"));

    FloeException none = SchemaErrors.overwriteNotOnIdentityPartition("db.t", "x > 1", "x", List.of());
    assertTrue(none.getMessage(), none.getMessage().contains("this table has none"));

    FloeException missing = SchemaErrors.columnNotFound("table db.t", "nope", List.of("id", "name"));
    assertEquals(ErrorClass.FLOE_COLUMN_NOT_FOUND, missing.errorClass());
    assertTrue(missing.getMessage(), missing.getMessage().contains("'nope'"));
    assertTrue(missing.getMessage(), missing.getMessage().contains("id, name"));
  }

  @Test
  public void snapshotErrorsNameTheTableAndTarget() {
    FloeException e = SnapshotErrors.versionNotFound("floe.db.t", "12345", "the table's snapshots are 1");
    assertEquals(ErrorClass.FLOE_SNAPSHOT_NOT_FOUND, e.errorClass());
    assertEquals("Cannot time travel table floe.db.t to version 12345: no snapshot, branch or tag has that id or "
        + "name; the table's snapshots are 1", e.getMessage());
    assertEquals("12345", e.parameters().get("version"));

    FloeException early = SnapshotErrors.timeTravelInvalid("Cannot time travel table db.t to 2000-01-01T00:00:00Z",
        "2000-01-01T00:00:00Z", "it is before the table's first snapshot");
    assertEquals(ErrorClass.FLOE_TIME_TRAVEL_INVALID, early.errorClass());
    assertTrue(early.getMessage(), early.getMessage().startsWith("Cannot time travel table db.t to 2000"));
  }

  @Test
  public void procedureOptionAndFileErrorsNameTheirObject() {
    FloeException arg = ProcedureErrors.invalidArgument("floe.system.expire_snapshots", "retain_last",
        "Cannot run floe.system.expire_snapshots: retain_last must be at least 1, got 0");
    assertEquals(ErrorClass.FLOE_PROCEDURE_ARGUMENT_INVALID, arg.errorClass());
    assertEquals("retain_last", arg.parameters().get("argument"));

    FloeException option = OptionErrors.invalidOption("as-of-timestamp", "soon", "Cannot read table db.t: ...");
    assertEquals(ErrorClass.FLOE_OPTION_INVALID, option.errorClass());
    assertEquals("soon", option.parameters().get("value"));

    FloeFormatException file = FileErrors.corrupt("s3://b/t/metadata/snap-1.avro", "bad magic 0x00, expected Obj1");
    assertEquals(ErrorClass.FLOE_FILE_INVALID, file.errorClass());
    assertEquals("Cannot read s3://b/t/metadata/snap-1.avro: bad magic 0x00, expected Obj1", file.getMessage());
    assertEquals("s3://b/t/metadata/snap-1.avro", file.parameters().get("file"));
  }

  @Test
  public void prefixedKeepsTheClassOfAFloeExceptionAndClassifiesOthers() {
    FloeException inner = SchemaErrors.invalidChange("a.b", "Cannot drop a.b: it is the last field");
    FloeException outer = FloeException.prefixed("Cannot alter table db.t: ", inner, ErrorClass.FLOE_UNSUPPORTED);
    assertEquals(ErrorClass.FLOE_SCHEMA_CHANGE_INVALID, outer.errorClass());
    assertEquals("Cannot alter table db.t: Cannot drop a.b: it is the last field", outer.getMessage());
    assertEquals("a.b", outer.parameters().get("column"));
    assertSame(inner, outer.getCause());

    IllegalArgumentException plain = new IllegalArgumentException("Invalid sort direction 'sideways'");
    FloeException classified = FloeException.prefixed("", plain, ErrorClass.FLOE_SORT_ORDER_INVALID);
    assertEquals(ErrorClass.FLOE_SORT_ORDER_INVALID, classified.errorClass());
    assertEquals("Invalid sort direction 'sideways'", classified.getMessage());
  }

  @Test
  public void parametersDropNullValuesAndKeepOrder() {
    FloeException e = new FloeException(ErrorClass.FLOE_UNSUPPORTED, "m",
        FloeException.params("table", "t", "column", null, "file", "f"), null);
    assertEquals(List.of("table", "file"), List.copyOf(e.parameters().keySet()));
  }
}
