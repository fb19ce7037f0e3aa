package io.floe.spark.source;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/**
 * Rows computed on the driver, handed to Spark as a local scan: the rows of a metadata table
 * ({@code db.t.snapshots}, ...) and the result of a procedure's CALL.
 */
public final class LocalRowsScan implements LocalScan {
  private final String name;
  private final StructType schema;
  private final InternalRow[] rows;

  /** {@code name} says in EXPLAIN where the rows come from (a metadata table, a procedure). */
  public LocalRowsScan(String name, StructType schema, InternalRow... rows) {
    this.name = name;
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
    return name + " (" + rows.length + " rows)";
  }
}
