package io.floe.spark.metadata;

import io.floe.spark.source.LocalRowsScan;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A read-only table that describes a Floe table's metadata ({@code db.t.snapshots}, {@code db.t.files},
 * ...), with the columns of Iceberg's metadata table of the same name. Rows are built on the driver
 * when the scan is built.
 */
abstract class MetadataTable implements SupportsRead {
  private final MetadataTableSource source;
  private final String type;
  private final StructType schema;

  MetadataTable(MetadataTableSource source, String type, StructType schema) {
    this.source = source;
    this.type = type;
    this.schema = schema;
  }

  MetadataTableSource source() {
    return source;
  }

  /** The rows, in {@link #schema()} order; Catalyst values (UTF8String, GenericInternalRow, ...). */
  abstract List<InternalRow> rows();

  @Override
  public final StructType schema() {
    return schema;
  }

  @Override
  public String name() {
    return source.tableName() + "." + type;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> new LocalRowsScan(name(), schema, rows().toArray(new InternalRow[0]));
  }

  @Override
  public String toString() {
    return name();
  }
}
