package io.floe.spark.write;

import io.floe.format.FloeException;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.commit.TableOperations;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.stream.BatchAlreadyCommittedException;
import io.floe.format.stream.StreamingCommits;
import io.floe.spark.util.CommitGate;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.util.SerializableConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One micro-batch of a streaming query into a table (Spark builds a write per batch), committed at
 * most once (docs/streaming.md, section 3). Tasks write files exactly as a batch write does
 * ({@link FloeDataWriterFactory}, same marker and clean-up protocol). {@link #commit} refreshes the
 * table and skips a batch the query already committed (a restart replays the last batch whose
 * checkpoint commit was lost); otherwise it appends the files (append mode) or replaces every row
 * with them (complete mode) in one snapshot whose summary names the query and the batch, through
 * {@link StreamingCommits#guard}, so that a retry after a lost race never publishes the batch twice.
 */
final class FloeStreamingWrite implements StreamingWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FloeStreamingWrite.class);

  private final FloeWriteTarget target;
  private final TableMetadata base;
  private final LogicalWriteInfo info;
  private final boolean complete;
  private final SerializableConfiguration conf;
  private final String operationId = UUID.randomUUID().toString();
  private volatile boolean commitStateUnknown = false;

  FloeStreamingWrite(FloeWriteTarget target, LogicalWriteInfo info, boolean complete, SerializableConfiguration conf) {
    this.target = target;
    this.base = target.metadata();
    this.info = info;
    this.complete = complete;
    this.conf = conf;
  }

  private String queryId() {
    return info.queryId();
  }

  private String dataLocation() {
    return FloeBatchWrite.dataLocation(base);
  }

  @Override
  public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo physical) {
    FloeBatchWrite.createWriteMarker(dataLocation(), operationId, conf.value(), target.name());
    return new Factory(new FloeDataWriterFactory(base.schema(), base.spec(), info.schema(), dataLocation(), conf,
        base.properties(), operationId, false, target.indexedColumns(base, info.schema())));
  }

  /** The batch writers' factory: each task writes as a batch write's task does. */
  private record Factory(DataWriterFactory delegate) implements StreamingDataWriterFactory {
    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
      return delegate.createWriter(partitionId, taskId);
    }
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(long epochId, WriterCommitMessage[] messages) {
    List<DataFile> files = FloeBatchWrite.collect(base, messages);
    StreamingCommitPause.reached(StreamingCommitPause.Point.BEFORE_COMMIT);
    try {
      TableOperations ops = target.ops();
      if (StreamingCommits.isCommitted(ops.refresh(), queryId(), epochId)) {
        skip(epochId, files, null);
        return;
      }
      TableOperations guarded = StreamingCommits.guard(StreamingCommitPause.around(ops), queryId(), epochId);
      SnapshotProducer producer = newProducer(guarded, files);
      StreamingCommits.record(producer, queryId(), epochId);
      producer.set("spark.app.id", SparkSession.active().sparkContext().applicationId());
      producer.validateAddedFilesExist();
      FloeBatchWrite.addIndexSync(producer, target, written(messages));
      CommitGate.pass(target.name());
      commitStateUnknown = true; // as FloeBatchWrite#commit: until the commit fails in a known way
      try {
        producer.commit();
        LOG.info("Committed batch {} of streaming query {} to table {}: {} data files", epochId, queryId(),
            target.name(), files.size());
        StreamingCommitPause.reached(StreamingCommitPause.Point.AFTER_PUBLISH);
      } catch (BatchAlreadyCommittedException e) {
        commitStateUnknown = false;
        skip(epochId, files, e);
      } catch (CommitStateUnknownException e) {
        throw e; // the restarted query asks the table again (isCommitted) and so resolves it
      } catch (RuntimeException e) {
        commitStateUnknown = false;
        FloeBatchWrite.deleteFiles(paths(files), conf.value());
        throw e;
      }
    } catch (FloeException e) {
      throw SparkExceptions.atRuntime(e);
    } finally {
      FloeBatchWrite.deleteFiles(List.of(FloeBatchWrite.writeMarker(dataLocation(), operationId)), conf.value());
    }
  }

  /** Append mode adds the files; complete mode replaces every live file of the table with them. */
  private SnapshotProducer newProducer(TableOperations guarded, List<DataFile> files) {
    if (complete) {
      OverwriteFiles overwrite = new OverwriteFiles(guarded).replaceAll();
      files.forEach(overwrite::addFile);
      return overwrite;
    }
    AppendFiles append = new AppendFiles(guarded);
    files.forEach(append::appendFile);
    return append;
  }

  /** The batch committed before (an earlier run of the query): this run's files are not needed. */
  private void skip(long epochId, List<DataFile> files, BatchAlreadyCommittedException lostRace) {
    LOG.info("Skipping batch {} of streaming query {} on table {}: it has already committed{}", epochId, queryId(),
        target.name(), lostRace == null ? "" : " (found while retrying the commit)");
    FloeBatchWrite.deleteFiles(paths(files), conf.value());
  }

  private static List<String> paths(List<DataFile> files) {
    return files.stream().map(DataFile::path).toList();
  }

  private static List<WrittenFile> written(WriterCommitMessage[] messages) {
    List<WrittenFile> written = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message instanceof FloeCommitMessage m) {
        written.addAll(m.files());
      }
    }
    return written;
  }

  @Override
  public void abort(long epochId, WriterCommitMessage[] messages) {
    // as FloeBatchWrite#abort: late tasks clean up after themselves once the marker is gone
    FloeBatchWrite.deleteFiles(List.of(FloeBatchWrite.writeMarker(dataLocation(), operationId)), conf.value());
    if (commitStateUnknown) {
      return; // the commit may have published the files
    }
    List<String> paths = new ArrayList<>();
    for (WrittenFile f : written(messages)) {
      paths.add(f.path());
    }
    FloeBatchWrite.deleteFiles(paths, conf.value());
    FloeBatchWrite.deleteFiles(FloeBatchWrite.filesOfWrite(dataLocation(), operationId, conf.value()), conf.value());
  }

  @Override
  public String toString() {
    return "FloeStreamingWrite(" + target.name() + ", " + (complete ? "complete" : "append") + ")";
  }
}
