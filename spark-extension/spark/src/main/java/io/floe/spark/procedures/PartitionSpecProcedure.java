package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.PartitionSpecUpdate;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.sql.SqlSyntaxException;
import io.floe.format.sql.TransformTerm;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
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
abstract class PartitionSpecProcedure extends FloeProcedure {
  static final StructType OUTPUT = new StructType()
      .add("spec_id", DataTypes.IntegerType, false)
      .add("spec", DataTypes.StringType, false);

  PartitionSpecProcedure(CatalogAccess catalog, String name, String description, ProcedureParameter[] parameters) {
    super(catalog, name, description, parameters);
  }

  /** Applies this procedure's change to {@code update}; arguments are in {@link #parameters()} order. */
  abstract void evolve(PartitionSpecUpdate update, InternalRow args);

  @Override
  Iterator<Scan> run(InternalRow args) {
    String tableArg = requiredString(args, 0, "table");
    TableIdentifier ident = resolveTable(tableArg);
    String table = tableName(ident);
    FileSystemTableOperations ops = loadTable(ident);
    TableMetadata committed = commitMetadata(ops, base -> {
      PartitionSpecUpdate update = new PartitionSpecUpdate(base, table);
      evolve(update, args);
      return TableMetadata.buildFrom(base).setDefaultPartitionSpec(update.apply()).build();
    });
    PartitionSpec spec = committed.spec();
    InternalRow row = new GenericInternalRow(new Object[] {
        spec.specId(), UTF8String.fromString(PartitionSpecUpdate.describe(spec, committed.schema()))});
    return result(OUTPUT, row);
  }

  TransformTerm transform(InternalRow args, int ordinal, String parameter) {
    String text = requiredString(args, ordinal, parameter);
    try {
      return TransformTerm.parse(text);
    } catch (SqlSyntaxException e) {
      throw argumentError(parameter, "Invalid " + parameter + " argument of " + qualifiedName() + ": "
          + e.getMessage());
    }
  }
}
