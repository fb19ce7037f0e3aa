package io.floe.spark.metadata;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/** The rows of a metadata table, computed on the driver and handed to Spark as a local scan. */
final class MetadataRowsScan implements LocalScan {
  private final String table;
  private final StructType schema;
  private final InternalRow[] rows;

  MetadataRowsScan(String table, StructType schema, InternalRow[] rows) {
    this.table = table;
    this.schema = schema;
    this.rows = rows;
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
    return table + " (" + rows.length + " rows)";
  }
}
