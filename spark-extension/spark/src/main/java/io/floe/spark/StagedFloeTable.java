package io.floe.spark;

import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.commit.TableReplacement;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.util.SparkPartitioning;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.write.FloeWriteTarget;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * CREATE TABLE AS SELECT and REPLACE TABLE [AS SELECT]: data files are written first, then the new
 * table (or its replacement) and the snapshot holding that data are published as one metadata
 * version. If anything fails before, the table is untouched and the written files are removed.
 */
final class StagedFloeTable implements StagedTable, SupportsWrite {
  enum Mode { CREATE, REPLACE, CREATE_OR_REPLACE }

  private final FloeCatalog catalog;
  private final Identifier ident;
  private final TableMetadata fresh;
  private final Mode mode;
  private final FileSystemTableOperations ops;
  private final TableMetadata target;
  private SnapshotProducer pending = null;

  StagedFloeTable(FloeCatalog catalog, Identifier ident, TableMetadata fresh, Mode mode) {
    this.catalog = catalog;
    this.ident = ident;
    this.fresh = fresh;
    this.mode = mode;
    this.ops = catalog.formatCatalog().newTableOps(FloeCatalog.toIdentifier(ident));
    TableMetadata current = mode == Mode.CREATE ? null : ops.refresh();
    // files are written against the metadata they will be committed with, so spec ids match
    this.target = current == null ? fresh : TableReplacement.replace(current, fresh);
  }

  @Override
  public String name() {
    return catalog.name() + "." + ident;
  }

  @Override
  public StructType schema() {
    return SparkSchemas.convert(fresh.schema());
  }

  @Override
  public Transform[] partitioning() {
    return SparkPartitioning.toSpark(fresh.spec());
  }

  @Override
  public Map<String, String> properties() {
    return fresh.properties();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.OVERWRITE_BY_FILTER);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    FloeWriteTarget writeTarget = new FloeWriteTarget(name(), ops, target) {
      @Override
      public void commit(SnapshotProducer producer, TableMetadata base) {
        pending = producer;
      }

      @Override
      public boolean validatesQueryReads() {
        return false;
      }
    };
    return writeTarget.newWriteBuilder(info);
  }

  @Override
  public void commitStagedChanges() {
    TableIdentifier id = FloeCatalog.toIdentifier(ident);
    if (pending != null) {
      pending.checkAddedFilesExist(); // the write's marker is gone: a REPLACE's target may have been cleaned
    }
    for (int attempt = 0; ; attempt++) {
      TableMetadata current = ops.refresh();
      try {
        if (current == null) {
          if (mode == Mode.REPLACE) {
            throw new IllegalStateException("Cannot replace table " + name() + ": it was dropped concurrently");
          }
          TableMetadata created = pending == null ? fresh : pending.apply(fresh);
          catalog.formatCatalog().createStagedTable(id, created);
        } else {
          if (mode == Mode.CREATE) {
            throw new IllegalStateException("Cannot create table " + name() + ": it was created concurrently");
          }
          TableMetadata replaced = TableReplacement.replace(current, fresh);
          if (replaced.defaultSpecId() != target.defaultSpecId() && pending != null) {
            throw new IllegalStateException("Cannot replace table " + name()
                + ": its partition specs changed concurrently; run the statement again");
          }
          TableMetadata updated = pending == null ? replaced : pending.apply(replaced);
          ops.commit(current, updated);
          if (pending != null) {
            pending.cleanUpUncommitted(updated); // the manifest lists of lost attempts
          }
        }
        return;
      } catch (CommitFailedException e) {
        if (attempt >= 3) {
          if (pending != null) {
            pending.cleanUpAfterFailure();
          }
          throw e;
        }
      } catch (CatalogException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
  }

  @Override
  public void abortStagedChanges() {
    if (pending != null) {
      for (io.floe.format.manifest.DataFile f : pending.addedFiles()) {
        try {
          ops.io().deleteFile(f.path());
        } catch (java.io.IOException | RuntimeException ignored) {
          // best effort: the file was never committed
        }
      }
    }
    pending = null;
    removeEmptyDirectories();
  }

  /**
   * A table that was never published leaves no directories in the warehouse: its folder would
   * otherwise list as a namespace and keep DROP NAMESPACE from working. Only empty directories are
   * removed, so files of a concurrent writer of the same name stay.
   */
  private void removeEmptyDirectories() {
    try {
      if (ops.refresh() != null) {
        return;
      }
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(
          catalog.formatCatalog().tableLocation(FloeCatalog.toIdentifier(ident)));
      org.apache.hadoop.fs.FileSystem fs = root.getFileSystem(catalog.hadoopConf());
      if (fs.exists(root)) {
        deleteIfEmpty(fs, root);
      }
    } catch (java.io.IOException | RuntimeException ignored) {
      // best effort: empty directories hold no data
    }
  }

  private static boolean deleteIfEmpty(org.apache.hadoop.fs.FileSystem fs, org.apache.hadoop.fs.Path dir)
      throws java.io.IOException {
    boolean empty = true;
    for (org.apache.hadoop.fs.FileStatus child : fs.listStatus(dir)) {
      if (!child.isDirectory() || !deleteIfEmpty(fs, child.getPath())) {
        empty = false;
      }
    }
    return empty && fs.delete(dir, false);
  }
}
