package io.floe.spark.procedures;

import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.ManageRefs;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL floe.system.fast_forward(table => 'db.t', branch => 'main', to => 'audit')}, as
 * Iceberg's: moves {@code branch} to the head of ref {@code to}, which must descend from the
 * branch's head (see {@link ManageRefs#fastForward}). Returns the branch and its head before and after.
 */
final class FastForwardProcedure extends FloeProcedure {
  static final String NAME = "fast_forward";
  static final StructType OUTPUT = new StructType()
      .add("branch_updated", DataTypes.StringType, false)
      .add("previous_ref", DataTypes.LongType, true)
      .add("updated_ref", DataTypes.LongType, false);

  FastForwardProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Fast-forwards a branch to the head of another branch or tag", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("branch", DataTypes.StringType),
        required("to", DataTypes.StringType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String branch = requiredString(args, 1, "branch");
    String to = requiredString(args, 2, "to");
    String table = tableName(ident);
    Long[] previous = new Long[1];
    TableMetadata committed = commitMetadata(loadTable(ident), base -> {
      SnapshotRef before = base.ref(branch);
      previous[0] = before == null ? null : before.snapshotId();
      return ManageRefs.fastForward(base, table, branch, to);
    });
    return result(OUTPUT, new GenericInternalRow(new Object[] {UTF8String.fromString(branch), previous[0],
        committed.ref(branch).snapshotId()}));
  }
}
