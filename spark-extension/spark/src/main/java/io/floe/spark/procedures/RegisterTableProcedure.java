package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.util.SparkExceptions;
import java.util.Iterator;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.register_table(table => 'db.t', metadata_file => '.../v3.metadata.json')}:
 * makes an existing table metadata file a table of this catalog. The metadata is published as the
 * table's first version under the catalog's directory for that name; data and manifests stay where
 * they are (see FileSystemCatalog#registerTable). Returns the current snapshot id and the total
 * record and data file counts from its summary.
 */
final class RegisterTableProcedure extends FloeProcedure {
  static final String NAME = "register_table";
  static final StructType OUTPUT = new StructType()
      .add("current_snapshot_id", DataTypes.LongType, true)
      .add("total_records_count", DataTypes.LongType, true)
      .add("total_data_files_count", DataTypes.LongType, true);

  RegisterTableProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Registers an existing metadata file as a table", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("metadata_file", DataTypes.StringType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String metadataFile = requiredString(args, 1, "metadata_file");
    TableMetadata metadata;
    try {
      metadata = catalog().formatCatalog().registerTable(ident, metadataFile).current();
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.TABLE_EXISTS) {
        throw userError(ErrorClass.FLOE_TABLE_ALREADY_EXISTS, "Cannot register table " + tableName(ident)
            + ": a table with that name already exists "
            + "(drop it first or register under another name)");
      }
      throw refused("Cannot register table " + tableName(ident) + ": ", e);
    } catch (IllegalArgumentException | FloeException e) {
      throw SparkExceptions.thrown(FloeException.reworded(e, ErrorClass.FLOE_PROCEDURE_REFUSED,
          e.getMessage().replace("table " + ident, "table " + tableName(ident))));
    }
    Snapshot current = metadata.currentSnapshot();
    Map<String, String> summary = current == null ? Map.of() : current.summary();
    return result(OUTPUT, new GenericInternalRow(new Object[] {
        current == null ? null : current.snapshotId(), total(summary, "total-records"),
        total(summary, "total-data-files")}));
  }

  private static Long total(Map<String, String> summary, String key) {
    try {
      return Long.parseLong(summary.getOrDefault(key, "0"));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
