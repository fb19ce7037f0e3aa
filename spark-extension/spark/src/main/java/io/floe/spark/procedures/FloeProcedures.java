package io.floe.spark.procedures;

import io.floe.format.ProcedureErrors;
import io.floe.spark.util.SparkExceptions;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * Every Floe procedure, by name, in namespace {@code system}: {@code CALL floe.system.<name>(...)}
 * runs through Spark 4's native procedure support (CatalogAccess is a CatalogAccess), so the
 * procedures work the same from SQL, PySpark, JDBC and Spark Connect.
 */
public final class FloeProcedures {
  public static final String NAMESPACE = "system";

  private static final Map<String, Function<CatalogAccess, UnboundProcedure>> PROCEDURES = new LinkedHashMap<>();

  static {
    PROCEDURES.put(AddPartitionFieldProcedure.NAME, AddPartitionFieldProcedure::new);
    PROCEDURES.put(DropPartitionFieldProcedure.NAME, DropPartitionFieldProcedure::new);
    PROCEDURES.put(ReplacePartitionFieldProcedure.NAME, ReplacePartitionFieldProcedure::new);
    PROCEDURES.put(ExpireSnapshotsProcedure.NAME, ExpireSnapshotsProcedure::new);
    PROCEDURES.put(RewriteDataFilesProcedure.NAME, RewriteDataFilesProcedure::new);
    PROCEDURES.put(RollbackToSnapshotProcedure.NAME, RollbackToSnapshotProcedure::new);
    PROCEDURES.put(RollbackToTimestampProcedure.NAME, RollbackToTimestampProcedure::new);
    PROCEDURES.put(SetCurrentSnapshotProcedure.NAME, SetCurrentSnapshotProcedure::new);
    PROCEDURES.put(CherrypickSnapshotProcedure.NAME, CherrypickSnapshotProcedure::new);
    PROCEDURES.put(FastForwardProcedure.NAME, FastForwardProcedure::new);
    PROCEDURES.put(CreateRefProcedure.BRANCH_NAME, CreateRefProcedure::branch);
    PROCEDURES.put(CreateRefProcedure.TAG_NAME, CreateRefProcedure::tag);
    PROCEDURES.put(DropRefProcedure.BRANCH_NAME, DropRefProcedure::branch);
    PROCEDURES.put(DropRefProcedure.TAG_NAME, DropRefProcedure::tag);
    PROCEDURES.put(AncestorsOfProcedure.NAME, AncestorsOfProcedure::new);
    PROCEDURES.put(RegisterTableProcedure.NAME, RegisterTableProcedure::new);
    PROCEDURES.put(AddFilesProcedure.NAME, AddFilesProcedure::new);
    PROCEDURES.put(RewriteManifestsProcedure.NAME, RewriteManifestsProcedure::new);
    PROCEDURES.put(RemoveOrphanFilesProcedure.NAME, RemoveOrphanFilesProcedure::new);
    PROCEDURES.put(ComputeTableStatsProcedure.NAME, ComputeTableStatsProcedure::new);
    PROCEDURES.put(CreateIndexProcedure.NAME, CreateIndexProcedure::new);
    PROCEDURES.put(DropIndexProcedure.NAME, DropIndexProcedure::new);
    PROCEDURES.put(RewriteIndexProcedure.NAME, RewriteIndexProcedure::new);
    PROCEDURES.put(CreateChangelogViewProcedure.NAME, CreateChangelogViewProcedure::new);
  }

  private FloeProcedures() {}

  /** The procedure {@code ident} of {@code catalog}; an unknown name is an error listing the known ones. */
  public static UnboundProcedure load(CatalogAccess catalog, Identifier ident) {
    Function<CatalogAccess, UnboundProcedure> factory = isSystem(ident.namespace()) ? PROCEDURES.get(ident.name()) : null;
    if (factory == null) {
      String name = catalog.name() + "." + String.join(".", ident.namespace())
          + (ident.namespace().length > 0 ? "." : "") + ident.name();
      throw SparkExceptions.thrown(ProcedureErrors.notFound(name, "Unknown procedure " + name
          + ": Floe's procedures are " + catalog.name() + "." + NAMESPACE + ".{"
          + String.join(", ", PROCEDURES.keySet()) + "}"));
    }
    return factory.apply(catalog);
  }

  /** The procedures in {@code namespace}: all of them in {@code system}, none elsewhere. */
  public static Identifier[] list(String[] namespace) {
    if (!isSystem(namespace)) {
      return new Identifier[0];
    }
    return PROCEDURES.keySet().stream().map(n -> Identifier.of(new String[] {NAMESPACE}, n)).toArray(Identifier[]::new);
  }

  private static boolean isSystem(String[] namespace) {
    return Arrays.equals(namespace, new String[] {NAMESPACE});
  }
}
