package io.floe.spark.write;

import io.floe.format.commit.IsolationLevel;
import io.floe.format.table.TableView;
import io.floe.spark.source.FloeParquetReader;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * A copy-on-write DELETE, UPDATE or MERGE: Spark reads every row of the data files that hold a
 * matching row (the scan plans the files the condition may match, then its runtime filter on
 * {@code _file} keeps those that really do), applies the change, and writes all the rows back;
 * the commit removes the files read and adds the new ones.
 */
public final class CopyOnWriteOperation extends FloeRowLevelOperation {
  public CopyOnWriteOperation(TableView table, Command command, IsolationLevel isolation) {
    super(table, command, isolation);
  }

  @Override
  protected String mode() {
    return FloeRowLevelOperationBuilder.COPY_ON_WRITE;
  }

  /** The file of each row: the runtime filter needs it, and the files read are the files replaced. */
  @Override
  public NamedReference[] requiredMetadataAttributes() {
    return new NamedReference[] {Expressions.column(FloeParquetReader.FILE_COLUMN)};
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new WriteBuilder() {
      @Override
      public Write build() {
        return new CopyOnWriteWrite(FloeWriteTarget.forTable(table), info, command, isolation, scan());
      }
    };
  }
}
