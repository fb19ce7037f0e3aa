package io.floe.format.commit;

import io.floe.format.commit.ConflictMatrixCase.Op;
import io.floe.format.expr.Expressions;
import io.floe.format.index.FileValues;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListCommit;
import io.floe.format.index.IndexLocations;
import io.floe.format.index.IndexSegment;
import io.floe.format.index.IndexSegmentWriter;
import io.floe.format.index.IndexType;
import io.floe.format.index.TableIndex;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.maintenance.ExpireSnapshots;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Types;
import java.util.List;
import java.util.function.Consumer;

/**
 * The matrix's operations, built the way Floe's engines build them (the Spark layer's classes are
 * named where a commit loop lives there), each against one target data file: prepared against
 * the snapshot it reads, committed later, and described by its effect on a {@link ConflictMatrixState}.
 */
final class ConflictMatrixOps {
  private ConflictMatrixOps() {}

  /** An operation that has read the table: {@link #commit} publishes it; {@link #effect} is what it changes. */
  static final class Prepared {
    private final Runnable commit;
    private final Consumer<ConflictMatrixState> effect;

    Prepared(Runnable commit, Consumer<ConflictMatrixState> effect) {
      this.commit = commit;
      this.effect = effect;
    }

    Runnable commit() {
      return commit;
    }

    Consumer<ConflictMatrixState> effect() {
      return effect;
    }
  }

  /**
   * Prepares {@code op} on {@code table} through {@code ops}, reading its current snapshot now;
   * {@code target} is the data file it changes, {@code role} ("a" or "b") names its column and index.
   */
  static Prepared prepare(Op op, String role, ConflictMatrixTable table, TableOperations ops, DataFile target,
      IsolationLevel isolation) {
    TableMetadata start = ops.refresh();
    Snapshot read = start.currentSnapshot();
    String region = table.region(target);
    switch (op) {
      case APPEND: {
        DataFile added = table.newDataFile(region, 3);
        return new Prepared(() -> new AppendFiles(ops).appendFile(added).commit(), s -> add(s, table, added));
      }
      case OVERWRITE: { // INSERT OVERWRITE ... PARTITION (region = ...) / overwrite by filter; truncate when unpartitioned
        DataFile added = table.newDataFile(region, 4);
        return new Prepared(() -> {
          OverwriteFiles overwrite = new OverwriteFiles(ops).addFile(added);
          if (region == null) {
            overwrite.replaceAll();
          } else {
            overwrite.overwriteByRowFilter(Expressions.equal("region", region));
          }
          overwrite.commit();
        }, s -> {
          s.removePartition(region);
          add(s, table, added);
        });
      }
      case DELETE_COW: { // copy-on-write DELETE: the file is rewritten without one row (FloeRowLevelOperation)
        DataFile rewritten = table.copyOf(target, target.recordCount() - 1);
        return new Prepared(() -> {
          OverwriteFiles overwrite = new OverwriteFiles(ops).deleteFile(target.path()).addFile(rewritten);
          validate(overwrite, read, region, isolation).commit();
        }, s -> {
          s.removeData(target.path());
          add(s, table, rewritten);
        });
      }
      case ROW_DELTA_POS:
      case ROW_DELTA_DV: { // merge-on-read DELETE of one row (PositionDeltaBatchWrite)
        DeleteFile deletes = op == Op.ROW_DELTA_DV ? table.deletionVector(target, 1) : table.positionDeletes(target, 1);
        return new Prepared(() -> {
          RowDelta delta = new RowDelta(ops).addDeletes(deletes).validateDataFilesExist(List.of(target.path()));
          delta.validateAddedFilesExist();
          validate(delta, read, region, isolation).commit();
        }, s -> s.addDelete(target.path(), deletes.path(), deletes.recordCount()));
      }
      case ROW_DELTA_UPDATE: { // merge-on-read UPDATE of one row: its delete and the updated row, in one commit
        DeleteFile deletes = ops.refresh().formatVersion() >= 3 ? table.deletionVector(target, 1)
            : table.positionDeletes(target, 1);
        DataFile updated = table.newDataFile(region, 1);
        return new Prepared(() -> {
          RowDelta delta = new RowDelta(ops).addRows(updated).addDeletes(deletes)
              .validateDataFilesExist(List.of(target.path()));
          delta.validateAddedFilesExist();
          validate(delta, read, region, isolation).commit();
        }, s -> {
          s.addDelete(target.path(), deletes.path(), deletes.recordCount());
          add(s, table, updated);
        });
      }
      case PARTITION_DELETES: { // a position delete file for the whole partition (no referenced data file)
        DeleteFile deletes = table.partitionPositionDeletes(region, 1);
        return new Prepared(() -> new RowDelta(ops).addDeletes(deletes).commit(), s -> {
          for (String path : List.copyOf(s.records.keySet())) {
            if (region == null || region.equals(s.regions.get(path))) {
              s.addDelete(path, deletes.path(), deletes.recordCount());
            }
          }
        });
      }
      case REWRITE: { // rewrite_data_files with use-starting-sequence-number (RewriteDataFilesProcedure)
        DataFile compacted = table.copyOf(target, target.recordCount());
        return new Prepared(() -> new RewriteFiles(ops).validateFromSnapshot(read.snapshotId())
            .dataSequenceNumber(read.sequenceNumber()).rewriteFile(target).addFile(compacted).commit(), s -> {
              s.removeData(target.path());
              add(s, table, compacted);
            });
      }
      case REPLACE_PARTITIONS: { // dynamic INSERT OVERWRITE (FloeBatchWrite OVERWRITE_DYNAMIC)
        DataFile added = table.newDataFile(region, 5);
        return new Prepared(() -> new OverwriteFiles(ops).replaceAddedPartitions().addFile(added).commit(), s -> {
          s.removePartition(region);
          add(s, table, added);
        });
      }
      case APPEND_THEN_EXPIRE: {
        DataFile added = table.newDataFile(region, 3);
        return new Prepared(() -> {
          new AppendFiles(ops).appendFile(added).commit();
          new ExpireSnapshots(ops).expireOlderThan(System.currentTimeMillis() + 3_600_000L).retainLast(1).commit();
        }, s -> add(s, table, added));
      }
      case REPLACE_TABLE:
        return replaceTable(table, ops, start);
      case SCHEMA_CHANGE: {
        String column = role + "_col";
        return new Prepared(() -> addColumn(ops, column), s -> s.columns.add(column));
      }
      case EXPIRE:
        return new Prepared(() -> new ExpireSnapshots(ops).expireOlderThan(System.currentTimeMillis() + 3_600_000L)
            .retainLast(1).commit(), s -> s.snapshots = 1);
      case INDEX_BUILD:
        return buildIndex(table, ops, start, "idx_" + role);
      default:
        throw new IllegalArgumentException("Unknown operation " + op);
    }
  }

  private static void add(ConflictMatrixState s, ConflictMatrixTable table, DataFile f) {
    s.addData(f.path(), f.recordCount(), table.region(f));
  }

  /** FloeRowLevelOperation.validateAgainst: the scan's snapshot and filter; data checks when serializable. */
  private static SnapshotProducer validate(SnapshotProducer producer, Snapshot read, String region,
      IsolationLevel isolation) {
    producer.validateFromSnapshot(read.snapshotId())
        .conflictDetectionFilter(Expressions.equal("region", region == null ? "eu" : region))
        .validateNoConflictingDeleteFiles();
    if (isolation == IsolationLevel.SERIALIZABLE) {
      producer.validateNoConflictingDataFiles();
    }
    return producer;
  }

  /**
   * REPLACE TABLE AS SELECT, as StagedFloeTable.commitStagedChanges commits it: the replacement is
   * re-applied to the refreshed table after a lost race (Iceberg's replace transaction does the same).
   */
  private static Prepared replaceTable(ConflictMatrixTable table, TableOperations ops, TableMetadata start) {
    TableMetadata fresh = TableMetadata.newTableMetadata(CommitFixtures.SCHEMA, table.spec(), SortOrder.unsorted(),
        table.location(), ConflictMatrixTable.properties(), start.formatVersion());
    DataFile added = table.newDataFile(table.partitioned() ? "eu" : null, 6);
    AppendFiles pending = new AppendFiles(ops).appendFile(added);
    return new Prepared(() -> {
      for (int attempt = 0; ; attempt++) {
        TableMetadata current = ops.refresh();
        try {
          TableMetadata updated = pending.apply(TableReplacement.replace(current, fresh));
          ops.commit(current, updated);
          pending.cleanUpUncommitted(updated);
          return;
        } catch (CommitFailedException e) {
          if (attempt >= 3) {
            throw e;
          }
        }
      }
    }, s -> {
      s.removePartition(null);
      add(s, table, added);
      s.columns.clear();
      CommitFixtures.SCHEMA.columns().forEach(c -> s.columns.add(c.name()));
    });
  }

  /** ALTER TABLE ADD COLUMN, as TableAlterations.apply commits it: re-applied to the new version on a lost race. */
  private static void addColumn(TableOperations ops, String column) {
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ops.refresh();
      try {
        TableMetadataBuilder builder = TableMetadata.buildFrom(base);
        SchemaUpdate.of(base).addColumn(List.of(column), Types.StringType.get(), null).applyTo(builder);
        ops.commit(base, builder.build());
        return;
      } catch (CommitFailedException e) {
        if (attempt >= 5) {
          throw e;
        }
      }
    }
  }

  /**
   * CREATE INDEX, as TableIndexes.create builds it: one segment over the files of the snapshot it
   * read, committed through IndexListCommit (re-applied to the newest index list on a lost race).
   */
  private static Prepared buildIndex(ConflictMatrixTable table, TableOperations ops, TableMetadata start,
      String name) {
    Snapshot read = start.currentSnapshot();
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.INVERTED, 1, Types.LongType.get())
        .snapshot(read.snapshotId(), read.sequenceNumber()).build();
    for (FileScanTask task : TableScan.of(ops.io(), start).planFiles().tasks()) {
      writer.add(FileValues.of(task.file().path(), List.of(1L, 2L)));
    }
    IndexSegment segment = writer.write(ops.io().newOutputFile(
        IndexLocations.newSegment(ops.metadataRoot() + "/metadata", name)));
    TableIndex index = TableIndex.builder(name, IndexType.INVERTED, 1).addSegment(segment).build();
    return new Prepared(() -> IndexListCommit.commit(ops, table.name(), (current, latest) -> {
      if (current.index(name) != null || latest.schema().findField(1) == null) {
        throw new IllegalStateException("Cannot create index " + name + " of table " + table.name());
      }
      return IndexList.buildFrom(current).add(index).build();
    }), s -> s.indexes.add(name));
  }
}
