package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.ProcedureErrors;
import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.sql.SqlSyntaxException;
import io.floe.format.sql.SqlTokens;
import io.floe.spark.source.LocalRowsScan;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * What every Floe procedure shares: its name and parameters for Spark's native CALL, resolving the
 * {@code table} argument in this catalog, reading arguments (in {@link #parameters()} order), user
 * errors as AnalysisExceptions that name the procedure and the table, and metadata commits retried
 * from the newest metadata when another writer committed first.
 */
abstract class FloeProcedure implements UnboundProcedure {
  private static final int COMMIT_ATTEMPTS = 4;

  private final CatalogAccess catalog;
  private final String name;
  private final String description;
  private final ProcedureParameter[] parameters;

  FloeProcedure(CatalogAccess catalog, String name, String description, ProcedureParameter[] parameters) {
    this.catalog = catalog;
    this.name = name;
    this.description = description;
    this.parameters = parameters;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  /**
   * A separate bound object, never this one: Spark's analyzer treats a procedure that is already a
   * BoundProcedure as bound, and would invoke it before it has put the arguments in parameter order
   * and filled in defaults (which fails for arguments that resolve late, such as
   * {@code older_than => current_timestamp() - INTERVAL 1 DAY}).
   */
  @Override
  public BoundProcedure bind(StructType inputType) {
    return new Bound();
  }

  ProcedureParameter[] parameters() {
    return parameters.clone();
  }

  /**
   * Runs the procedure ({@link #run}); a Floe error that escapes it (a commit conflict, a file that
   * cannot be read, a catalog refusal) reaches the caller as a classed AnalysisException.
   */
  private Iterator<Scan> call(InternalRow args) {
    try {
      return run(args);
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e);
    }
  }

  /** The procedure bound to its arguments' types: the same for every call. */
  private final class Bound implements BoundProcedure {
    @Override
    public String name() {
      return FloeProcedure.this.name();
    }

    @Override
    public String description() {
      return FloeProcedure.this.description();
    }

    @Override
    public ProcedureParameter[] parameters() {
      return FloeProcedure.this.parameters();
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
      return FloeProcedure.this.call(args);
    }
  }

  /** The procedure itself, with its arguments in {@link #parameters()} order. */
  abstract Iterator<Scan> run(InternalRow args);

  CatalogAccess catalog() {
    return catalog;
  }

  String qualifiedName() {
    return catalog.name() + ".system." + name;
  }

  /** The procedure's result: one local scan with these rows. */
  Iterator<Scan> result(StructType schema, InternalRow... rows) {
    return Collections.<Scan>singletonList(new LocalRowsScan(qualifiedName(), schema, rows)).iterator();
  }

  // ---- the table argument ------------------------------------------------------------------------

  /**
   * The table named by the {@code table} argument ({@code db.t}, {@code `my db`.t}, optionally
   * prefixed with this catalog's name); a bare {@code t} is looked up in the current namespace when
   * this catalog is the current one.
   */
  TableIdentifier resolveTable(String text) {
    String context = "table argument '" + text + "' of " + qualifiedName();
    List<String> parts;
    try {
      SqlTokens tokens = SqlTokens.of(text);
      parts = new ArrayList<>(tokens.expectMultipartIdentifier("a table name", context));
      if (!tokens.atEnd()) {
        throw tokens.unexpected("end of the table name", context);
      }
    } catch (SqlSyntaxException e) {
      throw argumentError("table", "Invalid " + context + ": " + e.getMessage());
    }
    if (parts.size() > 1 && parts.get(0).equals(catalog.name()) && !exists(parts)) {
      parts.remove(0);
    }
    if (parts.size() == 1) {
      CatalogManager manager = SparkSession.active().sessionState().catalogManager();
      if (!manager.currentCatalog().name().equals(catalog.name())) {
        throw argumentError("table", "Cannot resolve " + context + ": name the table with its namespace, e.g. 'db."
            + parts.get(0) + "'");
      }
      List<String> qualified = new ArrayList<>(Arrays.asList(manager.currentNamespace()));
      qualified.addAll(parts);
      parts = qualified;
    }
    try {
      return TableIdentifier.of(parts.subList(0, parts.size() - 1), parts.get(parts.size() - 1));
    } catch (CatalogException e) {
      throw argumentError("table", "Invalid " + context + ": " + e.getMessage());
    }
  }

  private boolean exists(List<String> parts) {
    try {
      return catalog.formatCatalog().tableExists(
          TableIdentifier.of(parts.subList(0, parts.size() - 1), parts.get(parts.size() - 1)));
    } catch (CatalogException e) {
      return false;
    }
  }

  /** The table's operations; a missing table is a user error naming it. */
  FileSystemTableOperations loadTable(TableIdentifier ident) {
    try {
      return catalog.formatCatalog().loadTable(ident);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_TABLE) {
        throw userError(ErrorClass.FLOE_TABLE_NOT_FOUND, "Cannot run " + qualifiedName() + ": table "
            + tableName(ident) + " does not exist");
      }
      throw SparkExceptions.thrown(e);
    }
  }

  /** {@code `catalog`.`db`.`t`}: the table's name quoted for SQL text run on its behalf. */
  String quoted(TableIdentifier ident) {
    StringBuilder sb = new StringBuilder(quote(catalog.name()));
    ident.namespace().forEach(part -> sb.append('.').append(quote(part)));
    return sb.append('.').append(quote(ident.name())).toString();
  }

  private static String quote(String part) {
    return SqlTokens.quote(part);
  }

  /** {@code catalog.db.t}, as messages name a table. */
  String tableName(TableIdentifier ident) {
    return catalog.name() + "." + ident;
  }

  // ---- commits -----------------------------------------------------------------------------------

  /**
   * Commits {@code change} applied to the current metadata; when another writer committed first,
   * recomputes the change from the newest metadata (up to four attempts). {@code change} throws
   * a FloeException (or IllegalArgumentException) for user errors, which become AnalysisExceptions.
   */
  TableMetadata commitMetadata(FileSystemTableOperations ops, UnaryOperator<TableMetadata> change) {
    TableMetadata base = ops.current();
    for (int attempt = 1; ; attempt++) {
      TableMetadata updated;
      try {
        updated = change.apply(base);
      } catch (IllegalArgumentException | FloeException e) {
        throw SparkExceptions.thrown("", e, ErrorClass.FLOE_PROCEDURE_REFUSED);
      }
      if (updated == base) {
        return base;
      }
      try {
        ops.commit(base, updated);
        return ops.current() != null ? ops.current() : updated;
      } catch (CommitFailedException e) {
        if (attempt >= COMMIT_ATTEMPTS) {
          throw e;
        }
        sleep(50L << attempt);
        base = ops.refresh();
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while retrying a commit", e);
    }
  }

  // ---- arguments ---------------------------------------------------------------------------------

  /** A parameter the caller must give. */
  static ProcedureParameter required(String name, DataType type) {
    return ProcedureParameter.in(name, type).build();
  }

  /** A parameter that is NULL when the caller leaves it out. */
  static ProcedureParameter optional(String name, DataType type) {
    return ProcedureParameter.in(name, type).defaultValue("NULL").build();
  }

  String requiredString(InternalRow args, int ordinal, String parameter) {
    String value = optionalString(args, ordinal);
    if (value == null || value.isBlank()) {
      throw missingArgument(parameter);
    }
    return value;
  }

  static String optionalString(InternalRow args, int ordinal) {
    return args.isNullAt(ordinal) ? null : args.getUTF8String(ordinal).toString();
  }

  long requiredLong(InternalRow args, int ordinal, String parameter) {
    if (args.isNullAt(ordinal)) {
      throw missingArgument(parameter);
    }
    return args.getLong(ordinal);
  }

  /** A required TIMESTAMP argument in milliseconds. */
  long requiredTimestampMillis(InternalRow args, int ordinal, String parameter) {
    return Math.floorDiv(requiredLong(args, ordinal, parameter), 1000L);
  }

  private RuntimeException missingArgument(String parameter) {
    return argumentError(parameter, "Cannot run " + qualifiedName() + ": argument " + parameter + " is required");
  }

  static Long optionalLong(InternalRow args, int ordinal) {
    return args.isNullAt(ordinal) ? null : args.getLong(ordinal);
  }

  static Integer optionalInt(InternalRow args, int ordinal) {
    return args.isNullAt(ordinal) ? null : args.getInt(ordinal);
  }

  static Boolean optionalBoolean(InternalRow args, int ordinal) {
    return args.isNullAt(ordinal) ? null : args.getBoolean(ordinal);
  }

  /** A TIMESTAMP argument (Spark passes microseconds since the epoch) in milliseconds, or null. */
  static Long optionalTimestampMillis(InternalRow args, int ordinal) {
    return args.isNullAt(ordinal) ? null : Math.floorDiv(args.getLong(ordinal), 1000L);
  }

  /** A user error as Spark's AnalysisException (checked in Java's eyes, so thrown without declaring it). */
  static RuntimeException userError(ErrorClass errorClass, String message) {
    return SparkExceptions.thrown(errorClass, message);
  }

  /** Argument {@code argument} of this procedure is missing or invalid; {@code message} says why. */
  RuntimeException argumentError(String argument, String message) {
    return SparkExceptions.thrown(ProcedureErrors.invalidArgument(qualifiedName(), argument, message));
  }

  /**
   * This procedure refuses to run on {@code table}: {@code e}'s message, after {@code prefix}, says
   * why; its class is kept when it is a FloeException, else {@link ErrorClass#FLOE_PROCEDURE_REFUSED}.
   */
  static RuntimeException refused(String prefix, RuntimeException e) {
    return SparkExceptions.thrown(prefix, e, ErrorClass.FLOE_PROCEDURE_REFUSED);
  }
}
