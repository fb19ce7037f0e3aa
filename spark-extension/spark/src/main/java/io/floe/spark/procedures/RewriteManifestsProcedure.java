package io.floe.spark.procedures;

import io.floe.format.FloeException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.RewriteManifests;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.rewrite_manifests(table => 'db.t' [, use_caching => true] [, spec_id => 0])}:
 * regroups the current snapshot's data manifests by partition (commit {@code replace}, same data) so
 * that planning a partition-filtered query reads fewer manifests. Returns one row: how many manifests
 * were replaced and how many were written (both 0 when the manifests are already clustered).
 * {@code use_caching} is accepted for Iceberg compatibility and has no effect: Floe rewrites
 * manifests on the driver, without Spark jobs to cache for.
 */
final class RewriteManifestsProcedure extends FloeProcedure {
  static final String NAME = "rewrite_manifests";

  static final StructType OUTPUT = new StructType()
      .add("rewritten_manifests_count", DataTypes.IntegerType, false)
      .add("added_manifests_count", DataTypes.IntegerType, false);

  RewriteManifestsProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Rewrites a table's manifests clustered by partition", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        optional("use_caching", DataTypes.BooleanType),
        optional("spec_id", DataTypes.IntegerType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    Integer specId = optionalInt(args, 2);
    FileSystemTableOperations ops = loadTable(ident);
    RewriteManifests.Result result;
    try {
      result = new RewriteManifests(ops).specId(specId).commit();
    } catch (IllegalArgumentException | FloeException e) {
      throw refused("Cannot run " + qualifiedName() + " on table " + tableName(ident) + ": ", e);
    }
    InternalRow row = new GenericInternalRow(new Object[] {
        result.rewrittenManifests().size(), result.addedManifests().size()});
    return result(OUTPUT, row);
  }
}
