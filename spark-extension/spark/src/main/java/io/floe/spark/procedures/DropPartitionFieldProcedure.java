package io.floe.spark.procedures;

import io.floe.format.commit.PartitionSpecUpdate;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL floe.system.drop_partition_field(table => 'db.t', field => 'days(ts)')}: stops
 * partitioning new writes by a field, given by its transform, identity column or name. In v2 the
 * field leaves the spec; in v1 it becomes a {@code void} field. Rewritten from
 * {@code ALTER TABLE db.t DROP PARTITION FIELD days(ts)}.
 */
final class DropPartitionFieldProcedure extends PartitionSpecProcedure {
  static final String NAME = "drop_partition_field";

  DropPartitionFieldProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Drops a partition field from a table's default partition spec", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("field", DataTypes.StringType)});
  }

  @Override
  void evolve(PartitionSpecUpdate update, InternalRow args) {
    update.remove(transform(args, 1, "field"));
  }
}
