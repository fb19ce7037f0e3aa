package io.floe.spark.write;

import io.floe.format.FloeException;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.IsolationLevel;
import io.floe.format.commit.MetadataAmendment;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.expr.Expression;
import io.floe.format.index.FileValues;
import io.floe.format.io.WriteMarkers;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.spark.source.QueryReads;
import io.floe.spark.util.CommitGate;
import io.floe.spark.util.SparkExceptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver side of a write: hands out writer factories, then commits all tasks' files as one
 * snapshot. On a known commit failure the written data files are deleted; when the outcome is
 * unknown, nothing is deleted. Subclasses (copy-on-write) choose the snapshot to commit through
 * {@link #newProducer} and the writer through {@link #fanout}.
 */
class FloeBatchWrite implements BatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FloeBatchWrite.class);
  /** What the write replaces; {@code ROW_LEVEL}: the files a subclass names in {@link #newProducer}. */
  enum Mode { APPEND, OVERWRITE_BY_FILTER, OVERWRITE_DYNAMIC, TRUNCATE, ROW_LEVEL }

  private final WriteTarget target;
  private final TableMetadata base;
  private final StructType rowType;
  private final Mode mode;
  private final Expression overwriteFilter;
  private final SerializableConfiguration conf;
  private final String operationId = UUID.randomUUID().toString();
  private volatile boolean commitStateUnknown = false;

  /** Where a write's files go and how they are committed: to a table, or into a staged CTAS/RTAS. */
  interface WriteTarget {
    String name();

    /** The name this target's own query reads are recorded under ({@link QueryReads#key}). */
    default String readsKey() {
      return name();
    }

    void commit(SnapshotProducer producer, TableMetadata base);

    AppendFiles newAppend();

    OverwriteFiles newOverwrite();

    /**
     * Whether an append is validated against the snapshots its own query read of this table
     * (see {@link QueryReads}); not for a table being created or replaced.
     */
    default boolean validatesQueryReads() {
      return false;
    }

    /** The columns writers gather values of for the target's sync indexes; none by default (a new table has none). */
    default IndexedColumns indexedColumns(TableMetadata base, StructType rowType) {
      return IndexedColumns.none();
    }

    /** The change that adds the written files to the target's sync indexes in the data commit, or null. */
    default MetadataAmendment indexSync(Map<Integer, List<FileValues>> valuesByField) {
      return null;
    }
  }

  FloeBatchWrite(WriteTarget target, TableMetadata base, StructType rowType, Mode mode, Expression overwriteFilter,
      SerializableConfiguration conf) {
    this.target = target;
    this.base = base;
    this.rowType = rowType;
    this.mode = mode;
    this.overwriteFilter = overwriteFilter;
    this.conf = conf;
  }

  static String dataLocation(TableMetadata metadata) {
    return metadata.dataLocation();
  }

  /**
   * A marker ({@link WriteMarkers}) that exists from before the first task starts until the write's
   * snapshot is published or the write gave up: while it exists, orphan removal keeps every file
   * named with the write's operation id. {@link #abort} deletes it first and then deletes every
   * file of the write it can find, so a task that finishes after the job failed either wrote its
   * files before that sweep, or sees the marker gone and deletes its files itself (see {@link
   * FloeDataWriter#commit}). The leading underscore hides it from readers.
   */
  static String writeMarker(String dataLocation, String operationId) {
    return WriteMarkers.location(dataLocation, operationId);
  }

  /**
   * Creates the marker of {@link #writeMarker}; before any task of the write starts. The marker is
   * empty and written without a checksum file: on a checksummed file system (the local one) the
   * {@code ._floe-writing-<id>.crc} of a writer killed before it deleted its marker would outlive the
   * marker, which orphan removal deletes once stale, and stay forever (hidden names are never orphans).
   */
  static void createWriteMarker(String dataLocation, String operationId, Configuration conf, String tableName) {
    Path marker = new Path(writeMarker(dataLocation, operationId));
    try {
      FileSystem fs = marker.getFileSystem(conf);
      (fs instanceof ChecksumFileSystem checksummed ? checksummed.getRawFileSystem() : fs).create(marker, true).close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write to table " + tableName + ": cannot create " + marker, e);
    }
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    Schema schema = base.schema();
    PartitionSpec spec = base.spec();
    createWriteMarker(dataLocation(base), operationId, conf.value(), target.name());
    return new FloeDataWriterFactory(schema, spec, rowType, dataLocation(base), conf, base.properties(), operationId,
        fanout(), target.indexedColumns(base, rowType));
  }

  /** Whether tasks use the fanout writer (rows in any partition order) rather than the clustered one. */
  protected boolean fanout() {
    return false;
  }

  protected WriteTarget target() {
    return target;
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    // every task has finished; the marker stays until the snapshot is published, for orphan removal
    try {
      List<DataFile> files = collect(messages);
      SnapshotProducer producer = newProducer(files);
      if (producer == null) {
        return; // nothing changes: no snapshot
      }
      producer.set("spark.app.id", org.apache.spark.sql.SparkSession.active().sparkContext().applicationId());
      producer.validateAddedFilesExist();
      addIndexSync(producer, messages);
      CommitGate.pass(target.name());
      // Spark calls abort() after any Throwable: until the commit fails in a known way, its files may
      // be in the table (an OutOfMemoryError can strike after publishing) and abort() must keep them
      commitStateUnknown = true;
      try {
        target.commit(producer, base);
        CommitErrorHook.afterCommit();
      } catch (CommitStateUnknownException e) {
        throw e;
      } catch (RuntimeException e) {
        commitStateUnknown = false;
        deleteFiles(files.stream().map(DataFile::path).toList(), conf.value());
        throw e;
      }
    } catch (FloeException e) {
      throw SparkExceptions.atRuntime(e);
    } finally {
      deleteFiles(List.of(writeMarker(dataLocation(base), operationId)), conf.value());
    }
  }

  /**
   * Has the commit add the written files to the target's sync indexes, from the values the writers
   * gathered; any problem leaves the files uncovered rather than failing the write.
   */
  private void addIndexSync(SnapshotProducer producer, WriterCommitMessage[] messages) {
    List<WrittenFile> written = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message instanceof FloeCommitMessage) {
        written.addAll(((FloeCommitMessage) message).files());
      }
    }
    addIndexSync(producer, target, written);
  }

  /** Has {@code producer}'s commit add {@code written} to {@code target}'s sync indexes; never fails the write. */
  static void addIndexSync(SnapshotProducer producer, WriteTarget target, List<WrittenFile> written) {
    try {
      Map<Integer, List<FileValues>> byField = new HashMap<>();
      for (WrittenFile f : written) {
        f.indexValues().forEach((fieldId, gathered) -> {
          FileValues values = FileValues.of(f.path(), gathered.javaValues());
          byField.computeIfAbsent(fieldId, id -> new ArrayList<>())
              .add(gathered.containsNull() ? values.withNulls() : values);
        });
      }
      MetadataAmendment sync = byField.isEmpty() ? null : target.indexSync(byField);
      if (sync != null) {
        producer.amendMetadata(sync);
      }
    } catch (RuntimeException e) {
      LOG.warn("Cannot prepare the index update of a write to table {}: its new files stay uncovered until "
          + "rewrite_index", target.name(), e);
    }
  }

  /**
   * An append whose query read the same table (a MERGE with only {@code WHEN NOT MATCHED THEN
   * INSERT}, which Spark runs as an append of an anti-join, or {@code INSERT INTO t SELECT ... FROM
   * t}) is validated like a MERGE under {@code write.merge.isolation-level}: under serializable, a
   * concurrent commit of data its query may have looked at fails it, rather than both writers
   * inserting the same new keys.
   */
  private void validateQueryReads(SnapshotProducer producer) {
    if (!target.validatesQueryReads()) {
      return;
    }
    List<QueryReads.Read> reads = QueryReads.readsOf(SparkSession.active().sparkContext(), target.readsKey());
    if (reads.isEmpty() || IsolationLevel.fromProperties(base.properties(), TableProperties.MERGE_ISOLATION_LEVEL,
        target.name()) != IsolationLevel.SERIALIZABLE) {
      return;
    }
    producer.validateFromSnapshot(reads.get(0).snapshotId())
        .conflictDetectionFilter(QueryReads.unionFilter(reads))
        .validateNoConflictingDataFiles();
  }

  /** The snapshot that adds {@code files} (the tasks' files), or null when the write changes nothing. */
  protected SnapshotProducer newProducer(List<DataFile> files) {
    switch (mode) {
      case APPEND: {
        AppendFiles append = target.newAppend();
        files.forEach(append::appendFile);
        validateQueryReads(append);
        return append;
      }
      case OVERWRITE_DYNAMIC: {
        OverwriteFiles overwrite = target.newOverwrite().replaceAddedPartitions();
        files.forEach(overwrite::addFile);
        return overwrite;
      }
      case OVERWRITE_BY_FILTER: {
        OverwriteFiles overwrite = target.newOverwrite().overwriteByRowFilter(overwriteFilter);
        files.forEach(overwrite::addFile);
        return overwrite;
      }
      case TRUNCATE: {
        OverwriteFiles overwrite = target.newOverwrite().replaceAll();
        files.forEach(overwrite::addFile);
        return overwrite;
      }
      default:
        throw new IllegalStateException("Unknown write mode " + mode);
    }
  }

  private List<DataFile> collect(WriterCommitMessage[] messages) {
    return collect(base, messages);
  }

  /** The data files the tasks' {@code messages} report, as files of {@code base}'s specs. */
  static List<DataFile> collect(TableMetadata base, WriterCommitMessage[] messages) {
    List<DataFile> files = new ArrayList<>();
    Map<Integer, PartitionSpec> specs = base.specsById();
    for (WriterCommitMessage message : messages) {
      if (message instanceof FloeCommitMessage) {
        for (WrittenFile f : ((FloeCommitMessage) message).files()) {
          files.add(f.toDataFile(specs.get(f.specId())));
        }
      }
    }
    return files;
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    // Tasks of the failed job may still be running; first make late ones clean up after themselves.
    deleteFiles(List.of(writeMarker(dataLocation(base), operationId)), conf.value());
    if (commitStateUnknown) {
      return; // the commit may have succeeded: its files may be in the table
    }
    List<String> paths = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message instanceof FloeCommitMessage) {
        ((FloeCommitMessage) message).files().forEach(f -> paths.add(f.path()));
      }
    }
    deleteFiles(paths, conf.value());
    deleteFiles(filesOfWrite(dataLocation(base), operationId, conf.value()), conf.value());
  }

  /** The files under {@code dataLocation} named by the write's operation id (see FloeDataWriter). */
  static List<String> filesOfWrite(String dataLocation, String operationId, Configuration conf) {
    List<String> found = new ArrayList<>();
    try {
      Path root = new Path(dataLocation);
      RemoteIterator<LocatedFileStatus> files = root.getFileSystem(conf).listFiles(root, true);
      while (files.hasNext()) {
        Path file = files.next().getPath();
        if (file.getName().contains("-" + operationId + "-")) {
          found.add(file.toString());
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // best effort: nothing was written, or the files are unreferenced and orphan removal finds them
    }
    return found;
  }

  /** Deletes files, best effort. */
  static void deleteFiles(List<String> paths, Configuration conf) {
    for (String p : paths) {
      try {
        Path path = new Path(p);
        path.getFileSystem(conf).delete(path, false);
      } catch (IOException | RuntimeException ignored) {
        // best effort: the files are unreferenced
      }
    }
  }

  @Override
  public String toString() {
    return "FloeBatchWrite(" + target.name() + ", " + mode + ")";
  }
}
