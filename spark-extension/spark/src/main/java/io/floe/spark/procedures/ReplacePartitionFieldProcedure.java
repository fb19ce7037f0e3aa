package io.floe.spark.procedures;

import io.floe.format.commit.PartitionSpecUpdate;
import io.floe.format.sql.TransformTerm;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL floe.system.replace_partition_field(table => 'db.t', field => 'days(ts)',
 * transform => 'hours(ts)' [, name => 'ts_hour'])}: drops one field and adds another in a single
 * commit. Rewritten from {@code ALTER TABLE db.t REPLACE PARTITION FIELD days(ts) WITH hours(ts)}.
 */
final class ReplacePartitionFieldProcedure extends PartitionSpecProcedure {
  static final String NAME = "replace_partition_field";

  ReplacePartitionFieldProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Replaces a partition field of a table's default partition spec", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("field", DataTypes.StringType),
        required("transform", DataTypes.StringType),
        optional("name", DataTypes.StringType)});
  }

  @Override
  void evolve(PartitionSpecUpdate update, InternalRow args) {
    TransformTerm field = transform(args, 1, "field");
    TransformTerm transform = transform(args, 2, "transform");
    update.remove(field).add(transform, optionalString(args, 3));
  }
}
