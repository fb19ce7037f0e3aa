package io.floe.spark.write;

import io.floe.format.commit.IsolationLevel;
import io.floe.format.table.TableView;
import io.floe.spark.source.FloeParquetReader;
import io.floe.spark.source.MetadataColumns;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;

/**
 * A merge-on-read DELETE, UPDATE or MERGE: Spark reads the rows the condition may match with
 * their {@code _file} and {@code _pos}, and hands the writer the positions of deleted rows and
 * the inserted rows (an update is a delete and an insert). Tasks collect deleted positions per
 * data file; the commit merges them with each file's existing deletes into one deletion vector
 * (format v3) or one position delete file (v2) per data file, in one {@code RowDelta} snapshot.
 */
public final class PositionDeltaOperation extends FloeRowLevelOperation implements SupportsDelta {
  public PositionDeltaOperation(TableView table, Command command, IsolationLevel isolation) {
    super(table, command, isolation);
  }

  @Override
  protected String mode() {
    return FloeRowLevelOperationBuilder.MERGE_ON_READ;
  }

  /** A row is identified by its data file and position in it. */
  @Override
  public NamedReference[] rowId() {
    return new NamedReference[] {
        Expressions.column(FloeParquetReader.FILE_COLUMN), Expressions.column(FloeParquetReader.POS_COLUMN)};
  }

  /** The spec and partition of a deleted row's file: the write clusters a MERGE's rows by them. */
  @Override
  public NamedReference[] requiredMetadataAttributes() {
    return new NamedReference[] {
        Expressions.column(MetadataColumns.SPEC_ID_COLUMN), Expressions.column(MetadataColumns.PARTITION_COLUMN)};
  }

  @Override
  public boolean representUpdateAsDeleteAndInsert() {
    return true;
  }

  @Override
  public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new DeltaWriteBuilder() {
      @Override
      public DeltaWrite build() {
        return new PositionDeltaWrite(table, info, command, isolation, scan());
      }
    };
  }
}
