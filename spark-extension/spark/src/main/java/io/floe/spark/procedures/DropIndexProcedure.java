package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.spark.index.TableIndexes;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL floe.system.drop_index(table => 'db.t', name => 'by_user')}: the same as
 * {@code DROP INDEX by_user ON db.t}. Its files stay until expire_snapshots removes them.
 */
final class DropIndexProcedure extends FloeProcedure {
  static final String NAME = "drop_index";
  private static final StructType OUTPUT = new StructType().add("dropped", DataTypes.StringType, false);

  DropIndexProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Drops a secondary index of a table", new ProcedureParameter[] {
        required("table", DataTypes.StringType), required("name", DataTypes.StringType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String name = requiredString(args, 1, "name");
    new TableIndexes(loadTable(ident), tableName(ident), quoted(ident)).drop(name);
    return result(OUTPUT, new GenericInternalRow(new Object[] {UTF8String.fromString(name)}));
  }
}
