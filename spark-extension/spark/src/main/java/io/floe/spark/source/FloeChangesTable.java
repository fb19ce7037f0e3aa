package io.floe.spark.source;

import io.floe.format.FloeException;
import io.floe.format.stream.ChangelogOptions;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The metadata table {@code db.t.changes}: the table's change feed, carry-over rows included, as
 * Iceberg's {@code changes} table; the range comes from the read options
 * ({@link ChangelogOptions}: {@code start-snapshot-id}, {@code end-snapshot-id},
 * {@code start-timestamp}, {@code end-timestamp}; none: the whole retained history).
 */
public final class FloeChangesTable implements SupportsRead {
  public static final String NAME = "changes";

  private final TableView table;

  public FloeChangesTable(TableView table) {
    this.table = table;
  }

  @Override
  public String name() {
    return table.name() + "." + NAME;
  }

  @Override
  public StructType schema() {
    return FloeChangelogScan.schema(table);
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    ChangelogOptions.Range range;
    try {
      range = ChangelogOptions.parse(table.name(), options).resolve(table.metadata());
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e);
    }
    return () -> new FloeChangelogScan(table, range);
  }

  @Override
  public String toString() {
    return name();
  }
}
