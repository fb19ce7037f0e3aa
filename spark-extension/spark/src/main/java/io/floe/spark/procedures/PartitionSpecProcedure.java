package io.floe.spark.procedures;

import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkExceptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The partition-field procedures: resolve the {@code table} argument in this catalog, compute the
 * new default spec from the current metadata, and commit it as one metadata change (recomputed from
 * the newest metadata if another writer committed first). Returns one row: the new spec's id and
 * the spec as text. User errors are AnalysisExceptions naming the table, field and transform.
 */
abstract class PartitionSpecProcedure implements UnboundProcedure, BoundProcedure {
  static final StructType OUTPUT = new StructType()
      .add("spec_id", DataTypes.IntegerType, false)
      .add("spec", DataTypes.StringType, false);
  private static final int COMMIT_ATTEMPTS = 4;

  private final FloeCatalog catalog;
  private final String name;
  private final String description;
  private final ProcedureParameter[] parameters;

  PartitionSpecProcedure(FloeCatalog catalog, String name, String description, ProcedureParameter[] parameters) {
    this.catalog = catalog;
    this.name = name;
    this.description = description;
    this.parameters = parameters;
  }

  /** Applies this procedure's change to {@code update}; arguments are in {@link #parameters()} order. */
  abstract void evolve(PartitionSpecUpdate update, InternalRow args);

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return parameters.clone();
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  @Override
  public Iterator<Scan> call(InternalRow args) {
    String tableArg = requiredString(args, 0, "table");
    TableIdentifier ident = resolveTable(tableArg);
    String table = catalog.name() + "." + ident;
    FileSystemTableOperations ops = load(ident, table);
    TableMetadata committed = commit(ops, table, args);
    PartitionSpec spec = committed.spec();
    InternalRow row = new GenericInternalRow(new Object[] {
        spec.specId(), UTF8String.fromString(PartitionSpecUpdate.describe(spec, committed.schema()))});
    return Collections.<Scan>singletonList(new ProcedureResult(OUTPUT, row)).iterator();
  }

  private TableMetadata commit(FileSystemTableOperations ops, String table, InternalRow args) {
    TableMetadata base = ops.current();
    for (int attempt = 1; ; attempt++) {
      PartitionSpec spec;
      try {
        PartitionSpecUpdate update = new PartitionSpecUpdate(base, table);
        evolve(update, args);
        spec = update.apply();
      } catch (IllegalArgumentException e) {
        throw userError(e.getMessage());
      }
      TableMetadata updated = TableMetadata.buildFrom(base).setDefaultPartitionSpec(spec).build();
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

  private FileSystemTableOperations load(TableIdentifier ident, String table) {
    try {
      return catalog.formatCatalog().loadTable(ident);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_TABLE) {
        throw userError("Cannot run " + qualifiedName() + ": table " + table + " does not exist");
      }
      throw SparkExceptions.unchecked(e);
    }
  }

  /**
   * The table named by the {@code table} argument ({@code db.t}, {@code `my db`.t}, optionally
   * prefixed with this catalog's name); a bare {@code t} is looked up in the current namespace when
   * this catalog is the current one.
   */
  private TableIdentifier resolveTable(String text) {
    String context = "table argument '" + text + "' of " + qualifiedName();
    List<String> parts;
    try {
      SqlTokens tokens = SqlTokens.of(text);
      parts = new ArrayList<>(tokens.expectMultipartIdentifier("a table name", context));
      if (!tokens.atEnd()) {
        throw tokens.unexpected("end of the table name", context);
      }
    } catch (SqlSyntaxException e) {
      throw userError("Invalid " + context + ": " + e.getMessage());
    }
    if (parts.size() > 1 && parts.get(0).equals(catalog.name()) && !exists(parts)) {
      parts.remove(0);
    }
    if (parts.size() == 1) {
      CatalogManager manager = SparkSession.active().sessionState().catalogManager();
      if (!manager.currentCatalog().name().equals(catalog.name())) {
        throw userError("Cannot resolve " + context + ": name the table with its namespace, e.g. 'db."
            + parts.get(0) + "'");
      }
      List<String> qualified = new ArrayList<>(Arrays.asList(manager.currentNamespace()));
      qualified.addAll(parts);
      parts = qualified;
    }
    try {
      return TableIdentifier.of(parts.subList(0, parts.size() - 1), parts.get(parts.size() - 1));
    } catch (CatalogException e) {
      throw userError("Invalid " + context + ": " + e.getMessage());
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

  String qualifiedName() {
    return catalog.name() + ".system." + name;
  }

  String requiredString(InternalRow args, int ordinal, String parameter) {
    String value = optionalString(args, ordinal);
    if (value == null || value.isBlank()) {
      throw userError("Cannot run " + qualifiedName() + ": argument " + parameter + " is required");
    }
    return value;
  }

  static String optionalString(InternalRow args, int ordinal) {
    return args.isNullAt(ordinal) ? null : args.getUTF8String(ordinal).toString();
  }

  TransformTerm transform(InternalRow args, int ordinal, String parameter) {
    String text = requiredString(args, ordinal, parameter);
    try {
      return TransformTerm.parse(text);
    } catch (SqlSyntaxException e) {
      throw userError("Invalid " + parameter + " argument of " + qualifiedName() + ": " + e.getMessage());
    }
  }

  /** A user error as Spark's AnalysisException (checked in Java's eyes, so thrown without declaring it). */
  static RuntimeException userError(String message) {
    return PartitionSpecProcedure.<RuntimeException>sneakyThrow(SparkExceptions.userError(message));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneakyThrow(Throwable e) throws E {
    throw (E) e;
  }
}
