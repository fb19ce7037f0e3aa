package io.floe.spark.write;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.MetadataAmendment;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.commit.TableOperations;
import io.floe.format.index.FileValues;
import io.floe.format.index.IndexSync;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.table.TableView;
import io.floe.spark.source.QueryReads;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructType;

/** A write into an existing table: commits through the table's operations, with retries. */
public class FloeWriteTarget implements FloeBatchWrite.WriteTarget {
  private final String name;
  private final TableOperations ops;
  private final TableMetadata metadata;
  /** The table's view when writing to an existing table: the branch or wap id commits go to. */
  private final TableView view;

  public FloeWriteTarget(String name, TableOperations ops, TableMetadata metadata) {
    this(name, ops, metadata, null);
  }

  private FloeWriteTarget(String name, TableOperations ops, TableMetadata metadata, TableView view) {
    this.name = name;
    this.ops = ops;
    this.metadata = metadata;
    this.view = view;
  }

  static FloeWriteTarget forTable(TableView table) {
    return new FloeWriteTarget(table.name(), table.ops(), table.metadata(), table);
  }

  @Override
  public String readsKey() {
    return view == null ? name : QueryReads.key(name, view.branch());
  }

  public TableMetadata metadata() {
    return metadata;
  }

  /** The table's operations (a streaming write commits each batch through them, guarded). */
  TableOperations ops() {
    return ops;
  }

  /**
   * Where commits go when not to main (docs/branches.md): "to branch 'b'", "staged with spark.wap.id=w";
   * null for main.
   */
  String elsewhereThanMain() {
    if (view == null || (view.branch() == null && view.wapId() == null)) {
      return null;
    }
    return view.wapId() != null ? "staged with spark.wap.id=" + view.wapId() : "to branch '" + view.branch() + "'";
  }

  /** This target at the table's latest metadata (a streaming query writes many batches through one table). */
  FloeWriteTarget refreshed() {
    return new FloeWriteTarget(name, ops, ops.refresh());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public AppendFiles newAppend() {
    AppendFiles append = new AppendFiles(ops);
    return view == null ? append : view.target(append);
  }

  @Override
  public OverwriteFiles newOverwrite() {
    OverwriteFiles overwrite = new OverwriteFiles(ops);
    return view == null ? overwrite : view.target(overwrite);
  }

  @Override
  public void commit(SnapshotProducer producer, TableMetadata base) {
    producer.commit();
  }

  @Override
  public IndexedColumns indexedColumns(TableMetadata base, StructType rowType) {
    return IndexedColumns.of(ops.io(), name, base, rowType);
  }

  @Override
  public MetadataAmendment indexSync(Map<Integer, List<FileValues>> valuesByField) {
    return new IndexSync(ops.io(), name, ops.metadataRoot() + "/metadata", valuesByField);
  }

  @Override
  public boolean validatesQueryReads() {
    return true;
  }

  /** Builds a write builder for this target (used by staged tables). */
  public org.apache.spark.sql.connector.write.WriteBuilder newWriteBuilder(
      org.apache.spark.sql.connector.write.LogicalWriteInfo info) {
    return new FloeWriteBuilder(this, info);
  }
}
