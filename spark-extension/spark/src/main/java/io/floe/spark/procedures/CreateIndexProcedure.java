package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.format.index.TableIndex;
import io.floe.spark.index.TableIndexes;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL floe.system.create_index(table => 'db.t', name => 'by_user', column => 'user_id',
 * type => 'btree')}: the same as {@code CREATE INDEX by_user ON db.t USING btree (user_id)}
 * (docs/indexes.md). The column may be nested ({@code 'a.b'}); the type defaults to inverted.
 * Returns the index's name, type and number of segments.
 */
final class CreateIndexProcedure extends FloeProcedure {
  static final String NAME = "create_index";
  private static final StructType OUTPUT = new StructType()
      .add("name", DataTypes.StringType, false)
      .add("type", DataTypes.StringType, false)
      .add("segments", DataTypes.IntegerType, false);

  CreateIndexProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Builds a secondary index of one column of a table", new ProcedureParameter[] {
            required("table", DataTypes.StringType), required("name", DataTypes.StringType),
            required("column", DataTypes.StringType), optional("type", DataTypes.StringType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String name = requiredString(args, 1, "name");
    String column = requiredString(args, 2, "column");
    TableIndexes indexes = new TableIndexes(loadTable(ident), tableName(ident), quoted(ident));
    TableIndex index = indexes.create(SparkSession.active(), name, Arrays.asList(column.split("\\.", -1)),
        optionalString(args, 3), Map.of());
    return result(OUTPUT, new GenericInternalRow(new Object[] {UTF8String.fromString(index.name()),
        UTF8String.fromString(index.type().typeName()), index.segments().size()}));
  }
}
