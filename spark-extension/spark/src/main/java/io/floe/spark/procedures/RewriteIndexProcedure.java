package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.spark.index.TableIndexes;
import java.util.Iterator;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.rewrite_index(table => 'db.t', name => 'by_user')}: merges the index's
 * segments into one, dropping files no longer live, and indexes the live files it does not cover
 * (written by another engine, or since the build). A segment that cannot be read is rebuilt.
 */
final class RewriteIndexProcedure extends FloeProcedure {
  static final String NAME = "rewrite_index";
  private static final StructType OUTPUT = new StructType()
      .add("rewritten_segments_count", DataTypes.IntegerType, false)
      .add("added_segments_count", DataTypes.IntegerType, false)
      .add("covered_files_count", DataTypes.IntegerType, false)
      .add("added_files_count", DataTypes.IntegerType, false);

  RewriteIndexProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Merges the segments of a secondary index and indexes the files it does not cover",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType), required("name", DataTypes.StringType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String name = requiredString(args, 1, "name");
    TableIndexes indexes = new TableIndexes(loadTable(ident), tableName(ident), quoted(ident));
    TableIndexes.RewriteResult r = indexes.rewrite(SparkSession.active(), name);
    return result(OUTPUT, new GenericInternalRow(new Object[] {r.segmentsBefore(), r.segmentsAfter(),
        r.coveredFiles(), r.addedFiles()}));
  }
}
