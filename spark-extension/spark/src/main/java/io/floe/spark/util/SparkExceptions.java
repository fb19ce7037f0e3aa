package io.floe.spark.util;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.catalog.CatalogErrors;
import io.floe.format.metadata.TableProperties;
import io.floe.format.metadata.TableProperty;
import java.io.FileNotFoundException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import scala.Option;

/**
 * Turns the format's user-facing errors into Spark's own exceptions, so SQL, JDBC, PySpark and Spark
 * Connect clients show them cleanly: Spark's own class where one fits (NoSuchTableException and the
 * like, built by the catalog where it has the identifier), otherwise an AnalysisException whose
 * condition is the Floe {@link ErrorClass} ({@code [FLOE_...] message}), with its SQLSTATE and the
 * named objects as message parameters.
 */
public final class SparkExceptions {
  private SparkExceptions() {}

  public static NoSuchTableException noSuchTable(Identifier ident) {
    return new NoSuchTableException(ident);
  }

  public static NoSuchNamespaceException noSuchNamespace(String[] namespace) {
    return new NoSuchNamespaceException(namespace);
  }

  public static TableAlreadyExistsException tableExists(Identifier ident) {
    return new TableAlreadyExistsException(ident);
  }

  public static NamespaceAlreadyExistsException namespaceExists(String[] namespace) {
    return new NamespaceAlreadyExistsException(namespace);
  }

  public static NonEmptyNamespaceException namespaceNotEmpty(String[] namespace, String details) {
    return new NonEmptyNamespaceException(namespace, details, Option.empty());
  }

  /** {@code e} as an AnalysisException with its Floe error class, SQLSTATE and parameters. */
  public static AnalysisException userError(FloeException e) {
    return new FloeAnalysisException(e.errorClass(), e.getMessage(), e.parameters(), e);
  }

  /** A user error of class {@code errorClass} with Floe's own message, as an AnalysisException. */
  public static AnalysisException userError(ErrorClass errorClass, String message) {
    return new FloeAnalysisException(errorClass, message, Map.of(), null);
  }

  /**
   * {@link #userError} thrown where only unchecked exceptions may be declared (catalog and
   * procedure methods): Spark still sees the AnalysisException. Use as {@code throw thrown(...)}.
   */
  public static RuntimeException thrown(ErrorClass errorClass, String message) {
    return SparkExceptions.<RuntimeException>sneakyThrow(userError(errorClass, message));
  }

  /** {@link #userError(FloeException)} thrown unchecked. Use as {@code throw thrown(e)}. */
  public static RuntimeException thrown(FloeException e) {
    return SparkExceptions.<RuntimeException>sneakyThrow(userError(e));
  }

  /**
   * {@code e} with {@code prefix} (e.g. "Cannot alter table floe.db.t: ") before its message, thrown
   * unchecked: its own error class when it is a FloeException, else {@code fallback}.
   */
  public static RuntimeException thrown(String prefix, RuntimeException e, ErrorClass fallback) {
    return thrown(FloeException.prefixed(prefix, e, fallback));
  }

  /**
   * Fails the statement that sets {@code properties} on {@code table} when a known property has a
   * value it does not accept (see {@link TableProperties#known}); keys Floe does not know pass.
   */
  public static void checkTableProperties(String table, Map<String, String> properties) {
    TableProperty invalid = TableProperties.firstInvalid(properties);
    if (invalid != null) {
      throw thrown(CatalogErrors.invalidTableProperty(table, invalid, properties.get(invalid.key())));
    }
  }

  /**
   * {@code e} thrown as it is, checked or not, where only unchecked exceptions may be declared (a
   * failure passed on after cleaning up). Use as {@code throw rethrown(e)}.
   */
  public static RuntimeException rethrown(Throwable e) {
    return SparkExceptions.<RuntimeException>sneakyThrow(e);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneakyThrow(Throwable e) throws E {
    throw (E) e;
  }

  /**
   * A file that the snapshot being read lists is gone from storage ({@code kind}: "data file",
   * "delete file"). Thrown in a task, so it reaches the user as the task failure's message.
   */
  public static FileNotFoundException missingFile(String kind, String table, Long snapshotId, String path,
      Throwable cause) {
    int dot = table.indexOf('.');
    String catalog = dot > 0 ? table.substring(0, dot) : "<catalog>";
    String shortName = dot > 0 ? table.substring(dot + 1) : table;
    FileNotFoundException e = new FileNotFoundException("Cannot read table " + table
        + (snapshotId == null ? "" : " at snapshot " + snapshotId) + ": its " + kind + " " + path
        + " does not exist. It was deleted outside Floe (by hand, by a storage lifecycle rule, or by "
        + "remove_orphan_files with a short older_than while a write was in flight). Restore the file, or roll "
        + "the table back to a snapshot that does not list it: SELECT snapshot_id, committed_at FROM " + table
        + ".snapshots, then CALL " + catalog + ".system.rollback_to_snapshot(table => '" + shortName
        + "', snapshot_id => <id>)");
    e.initCause(cause);
    return e;
  }

  /** The FileNotFoundException among {@code e} and its causes, or null. */
  public static FileNotFoundException findMissingFile(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof FileNotFoundException) {
        return (FileNotFoundException) t;
      }
    }
    return null;
  }

  /**
   * {@code e} as Spark shows an error that happens while a statement runs (not while it is
   * analysed): a commit that lost every retry, a conflicting concurrent change, an unknown commit
   * outcome. JDBC, PySpark and Spark Connect see its Floe error class and SQLSTATE; the format's
   * exception stays its cause, so code that looks for the conflict's own type still finds it.
   */
  public static RuntimeException atRuntime(FloeException e) {
    return new FloeRuntimeException(e);
  }

  /** A runtime error of a Floe error class; see {@link #atRuntime}. */
  static final class FloeRuntimeException extends RuntimeException implements SparkThrowable {
    private final ErrorClass errorClass;
    private final Map<String, String> parameters;

    FloeRuntimeException(FloeException cause) {
      super("[" + cause.errorClass().name() + "] " + cause.getMessage() + " SQLSTATE: "
          + cause.errorClass().sqlState(), cause);
      this.errorClass = cause.errorClass();
      Map<String, String> all = new LinkedHashMap<>();
      all.put("message", cause.getMessage());
      cause.parameters().forEach(all::putIfAbsent);
      this.parameters = java.util.Collections.unmodifiableMap(all);
    }

    @Override
    public String getCondition() {
      return errorClass.name();
    }

    @Override
    public String getSqlState() {
      return errorClass.sqlState();
    }

    @Override
    public Map<String, String> getMessageParameters() {
      return parameters;
    }

    @Override
    public String getDefaultMessageTemplate() {
      return "<message>";
    }
  }

  /**
   * An AnalysisException of a Floe error class: {@code getCondition()} is the class name,
   * {@code getSqlState()} its SQLSTATE, {@code getMessageParameters()} the message (key
   * {@code message}) and the named objects, and the message reads {@code [FLOE_...] text} like
   * Spark's own classed errors. Spark keeps the SQLSTATE when it re-throws a copy with a position.
   */
  static final class FloeAnalysisException extends AnalysisException {
    FloeAnalysisException(ErrorClass errorClass, String message, Map<String, String> parameters, Throwable cause) {
      super("[" + errorClass.name() + "] " + message + " SQLSTATE: " + errorClass.sqlState(), Option.empty(),
          Option.empty(), Option.apply(cause), Option.apply(errorClass.name()), scalaMap(message, parameters),
          new org.apache.spark.QueryContext[0], Option.apply(errorClass.sqlState()), Option.empty());
    }

    private static scala.collection.immutable.Map<String, String> scalaMap(String message, Map<String, String> params) {
      Map<String, String> all = new LinkedHashMap<>();
      all.put("message", message);
      params.forEach(all::putIfAbsent);
      return scala.collection.immutable.Map$.MODULE$.from(scala.jdk.CollectionConverters.MapHasAsScala(all).asScala());
    }
  }
}
