package io.floe.spark.procedures;

import io.floe.format.commit.PartitionSpecUpdate;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL floe.system.add_partition_field(table => 'db.t', transform => 'bucket(16, id)'
 * [, name => 'id_b'])}: partitions new writes by one more field; existing files keep their spec.
 * {@code ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id) [AS id_b]} is rewritten into this call.
 */
final class AddPartitionFieldProcedure extends PartitionSpecProcedure {
  static final String NAME = "add_partition_field";

  AddPartitionFieldProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Adds a partition field to a table's default partition spec", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("transform", DataTypes.StringType),
        optional("name", DataTypes.StringType)});
  }

  @Override
  void evolve(PartitionSpecUpdate update, InternalRow args) {
    update.add(transform(args, 1, "transform"), optionalString(args, 2));
  }
}
