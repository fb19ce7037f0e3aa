package io.floe.spark.write;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.expr.Expression;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The driver side of a write: hands out writer factories, then commits all tasks' files as one
 * snapshot. On a known commit failure the written data files are deleted; when the outcome is
 * unknown, nothing is deleted.
 */
final class FloeBatchWrite implements BatchWrite {
  enum Mode { APPEND, OVERWRITE_BY_FILTER, OVERWRITE_DYNAMIC, TRUNCATE }

  private final WriteTarget target;
  private final TableMetadata base;
  private final StructType rowType;
  private final Mode mode;
  private final Expression overwriteFilter;
  private final SerializableConfiguration conf;
  private final String operationId = UUID.randomUUID().toString();

  /** Where a write's files go and how they are committed: to a table, or into a staged CTAS/RTAS. */
  interface WriteTarget {
    String name();

    void commit(SnapshotProducer producer, TableMetadata base);

    AppendFiles newAppend();

    OverwriteFiles newOverwrite();
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
    String custom = metadata.properties().get("write.data.path");
    return custom != null ? custom : metadata.location() + "/data";
  }

  /**
   * A marker that exists while a write's tasks may still report files. {@link #abort} deletes it
   * first and then deletes every file of the write it can find, so a task that finishes after the
   * job failed either wrote its files before that sweep, or sees the marker gone and deletes its
   * files itself (see {@link FloeDataWriter#commit}). The leading underscore hides it from readers.
   */
  static String writeMarker(String dataLocation, String operationId) {
    return dataLocation + "/_floe-writing-" + operationId;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    Schema schema = base.schema();
    PartitionSpec spec = base.spec();
    Path marker = new Path(writeMarker(dataLocation(base), operationId));
    try {
      marker.getFileSystem(conf.value()).create(marker, true).close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write to table " + target.name() + ": cannot create " + marker, e);
    }
    return new FloeDataWriterFactory(schema, spec, rowType, dataLocation(base), conf, base.properties(), operationId);
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    deleteFiles(List.of(writeMarker(dataLocation(base), operationId))); // every task has finished
    List<DataFile> files = collect(messages);
    SnapshotProducer producer;
    switch (mode) {
      case APPEND:
      {
        AppendFiles append = target.newAppend();
        files.forEach(append::appendFile);
        producer = append;
        break;
      }
      case OVERWRITE_DYNAMIC: {
        OverwriteFiles overwrite = target.newOverwrite().replaceAddedPartitions();
        files.forEach(overwrite::addFile);
        producer = overwrite;
        break;
      }
      case OVERWRITE_BY_FILTER: {
        OverwriteFiles overwrite = target.newOverwrite().overwriteByRowFilter(overwriteFilter);
        files.forEach(overwrite::addFile);
        producer = overwrite;
        break;
      }
      case TRUNCATE: {
        OverwriteFiles overwrite = target.newOverwrite().replaceAll();
        files.forEach(overwrite::addFile);
        producer = overwrite;
        break;
      }
      default:
        throw new IllegalStateException("Unknown write mode " + mode);
    }
    producer.set("spark.app.id", org.apache.spark.sql.SparkSession.active().sparkContext().applicationId());
    try {
      target.commit(producer, base);
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      deleteFiles(files.stream().map(DataFile::path).toList());
      throw e;
    }
  }

  private List<DataFile> collect(WriterCommitMessage[] messages) {
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
    deleteFiles(List.of(writeMarker(dataLocation(base), operationId)));
    List<String> paths = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message instanceof FloeCommitMessage) {
        ((FloeCommitMessage) message).files().forEach(f -> paths.add(f.path()));
      }
    }
    deleteFiles(paths);
    deleteFiles(filesOfThisWrite());
  }

  /** The files under the data location named by this write's operation id (see FloeDataWriter). */
  private List<String> filesOfThisWrite() {
    List<String> found = new ArrayList<>();
    try {
      Path root = new Path(dataLocation(base));
      RemoteIterator<LocatedFileStatus> files = root.getFileSystem(conf.value()).listFiles(root, true);
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

  private void deleteFiles(List<String> paths) {
    for (String p : paths) {
      try {
        Path path = new Path(p);
        path.getFileSystem(conf.value()).delete(path, false);
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
