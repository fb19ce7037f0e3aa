package io.floe.spark.util;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.floe.format.ErrorClass;
import io.floe.format.SnapshotErrors;
import io.floe.format.catalog.CatalogErrors;
import io.floe.format.catalog.TableIdentifier;
import java.util.List;
import java.util.Map;
import org.apache.spark.ErrorMessageFormat;
import org.apache.spark.SparkThrowableHelper;
import org.apache.spark.sql.AnalysisException;
import org.junit.Test;

/** Floe errors become AnalysisExceptions with the Floe class, SQLSTATE and parameters, as Spark's classed errors. */
public class TestSparkExceptions {
  @Test
  public void aFloeErrorKeepsItsClassSqlStateAndNamedObjects() {
    AnalysisException e = SparkExceptions.userError(
        SnapshotErrors.versionNotFound("floe.db.t", "12345", "the table's snapshots are 1"));
    assertEquals("FLOE_SNAPSHOT_NOT_FOUND", e.getCondition());
    assertEquals("42704", e.getSqlState());
    Map<String, String> params = e.getMessageParameters();
    assertEquals("floe.db.t", params.get("table"));
    assertEquals("12345", params.get("version"));
    assertTrue(params.get("message"), params.get("message").startsWith("Cannot time travel table floe.db.t"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("[FLOE_SNAPSHOT_NOT_FOUND] Cannot time travel table"));
    assertTrue(e.getMessage(), e.getMessage().endsWith("SQLSTATE: 42704"));
  }

  @Test
  public void sparksCopyWithAPositionKeepsTheClassAndSqlState() {
    AnalysisException e = SparkExceptions.userError(ErrorClass.FLOE_OPTION_INVALID, "Invalid option x");
    // what withPosition does when the analyzer attaches a query position
    AnalysisException moved = e.copy(e.message(), scala.Option.apply((Object) 1), scala.Option.apply((Object) 5),
        e.cause(), e.errorClass(), e.messageParameters(), e.context());
    assertEquals("FLOE_OPTION_INVALID", moved.getCondition());
    assertEquals("22023", moved.getSqlState());
  }

  @Test
  public void sparksMinimalJsonShowsTheFloeClass() {
    AnalysisException e = SparkExceptions.userError(
        CatalogErrors.noSuchNamespace(List.of("nope")));
    String json = SparkThrowableHelper.getMessage(e, ErrorMessageFormat.MINIMAL());
    assertTrue(json, json.contains("\"errorClass\" : \"FLOE_NAMESPACE_NOT_FOUND\""));
    assertTrue(json, json.contains("\"sqlState\" : \"42704\""));
    assertTrue(json, json.contains("\"namespace\" : \"nope\""));
  }

  @Test
  public void prefixedErrorsKeepTheirClassAndCause() {
    io.floe.format.FloeException inner = CatalogErrors.noSuchTable(TableIdentifier.of(List.of("db"), "t"));
    Throwable thrown = org.junit.Assert.assertThrows(Throwable.class, () -> {
      throw SparkExceptions.thrown("Cannot run x: ", inner, ErrorClass.FLOE_PROCEDURE_REFUSED);
    });
    AnalysisException e = (AnalysisException) thrown;
    assertEquals("FLOE_TABLE_NOT_FOUND", e.getCondition());
    assertSame(inner, e.getCause().getCause());
  }

  @Test
  public void runtimeErrorsKeepTheFormatsExceptionAsCause() {
    io.floe.format.commit.ValidationException conflict =
        new io.floe.format.commit.ValidationException("Cannot commit to table floe.db.t: snapshot 7 deleted a file");
    RuntimeException e = SparkExceptions.atRuntime(conflict);
    org.apache.spark.SparkThrowable classed = (org.apache.spark.SparkThrowable) e;
    assertEquals("FLOE_CONCURRENT_CHANGE_CONFLICT", classed.getCondition());
    assertEquals("40001", classed.getSqlState());
    assertEquals(conflict.getMessage(), classed.getMessageParameters().get("message"));
    assertSame(conflict, e.getCause());
    assertTrue(e.getMessage(), e.getMessage().startsWith("[FLOE_CONCURRENT_CHANGE_CONFLICT] Cannot commit to table"));
    String json = SparkThrowableHelper.getMessage(e, ErrorMessageFormat.MINIMAL());
    assertTrue(json, json.contains("\"errorClass\" : \"FLOE_CONCURRENT_CHANGE_CONFLICT\""));
  }
}
