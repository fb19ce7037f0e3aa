package io.floe.spark;

import io.floe.format.catalog.CatalogException;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import scala.Option;

/** Turns the format's user-facing errors into Spark's own exceptions, so SQL and JDBC clients show them cleanly. */
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

  /** A user error with Floe's own message, as an AnalysisException. */
  public static AnalysisException userError(String message) {
    return new FloeAnalysisException(message);
  }

  /**
   * {@link #userError} thrown where only unchecked exceptions may be declared (catalog and
   * procedure methods): Spark still sees the AnalysisException. Use as {@code throw thrown(...)}.
   */
  public static RuntimeException thrown(String message) {
    return SparkExceptions.<RuntimeException>sneakyThrow(userError(message));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneakyThrow(Throwable e) throws E {
    throw (E) e;
  }

  public static RuntimeException unchecked(CatalogException e) {
    return new IllegalArgumentException(e.getMessage(), e);
  }

  /** AnalysisException's constructors are Scala-protected in places; this subclass keeps a plain message. */
  static final class FloeAnalysisException extends AnalysisException {
    FloeAnalysisException(String message) {
      super(message, Option.empty(), Option.empty(), Option.empty(), Option.empty(),
          scala.collection.immutable.Map$.MODULE$.empty(), new org.apache.spark.QueryContext[0]);
    }
  }
}
