package io.floe.spark.procedures;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/** The rows a procedure returns, in the form Spark's CALL expects: a local scan. */
final class ProcedureResult implements LocalScan {
  private final StructType schema;
  private final InternalRow[] rows;

  ProcedureResult(StructType schema, InternalRow... rows) {
    this.schema = schema;
    this.rows = rows.clone();
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public InternalRow[] rows() {
    return rows.clone();
  }

  @Override
  public String description() {
    return "ProcedureResult(" + rows.length + " rows)";
  }
}
