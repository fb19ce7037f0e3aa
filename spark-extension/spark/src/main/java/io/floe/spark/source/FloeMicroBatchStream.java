package io.floe.spark.source;

import io.floe.format.FloeException;
import io.floe.format.StreamingErrors;
import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.InclusiveMetricsEvaluator;
import io.floe.format.expr.Projections;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.stream.AppendedFile;
import io.floe.format.stream.IncrementalAppendScan;
import io.floe.format.stream.MicroBatch;
import io.floe.format.stream.StreamingOffset;
import io.floe.format.stream.StreamingReadOptions;
import io.floe.format.table.TableView;
import io.floe.format.types.Schema;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkSchemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxFiles;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.readStream.table("floe.db.t")}: the rows appended to a table, snapshot after snapshot
 * in commit order, planned by {@link IncrementalAppendScan} (docs/streaming.md, section 1). Offsets
 * are {@link StreamingOffset}s; the table is refreshed for every {@code latestOffset}. Files are read
 * with the batch scan's reader (without delete files: rows as they were appended) through the
 * schema of the table when the query started, matching columns by field id, and packed into tasks
 * as the batch scan packs them. Admission control maps Spark's {@code ReadMaxFiles},
 * {@code ReadMaxRows} and their composite onto the scan's limits, whose defaults are the options
 * {@code streaming-max-files-per-micro-batch} and {@code streaming-max-rows-per-micro-batch}.
 */
public final class FloeMicroBatchStream implements MicroBatchStream, SupportsTriggerAvailableNow {
  private final TableView table;
  private final Schema schema;
  private final StructType requested;
  private final Expression filter;
  private final CaseInsensitiveStringMap options;
  private final StreamingReadOptions streamOptions;
  private IncrementalAppendScan scan = null; // over the table as last refreshed
  private TableMetadata metadata = null;
  /** Trigger.AvailableNow: nothing past this offset is read; null when not AvailableNow. */
  private StreamingOffset cap = null;
  /** The start of the last batch planned, from which {@link #reportLatestOffset} measures. */
  private StreamingOffset lastStart = null;

  FloeMicroBatchStream(TableView table, StructType requested, Expression filter, CaseInsensitiveStringMap options) {
    if (table.isTimeTravel()) {
      throw SparkExceptions.thrown(StreamingErrors.pinnedStream(table.name(), table.snapshot().snapshotId()));
    }
    this.table = table;
    this.schema = table.readSchema();
    this.requested = requested;
    this.filter = filter;
    this.options = options;
    try {
      this.streamOptions = StreamingReadOptions.parse(table.name(), options);
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e);
    }
  }

  @Override
  public Offset initialOffset() {
    return new FloeStreamOffset(StreamingOffset.START);
  }

  @Override
  public Offset deserializeOffset(String json) {
    return new FloeStreamOffset(FloeStreamOffset.parse(json));
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    boolean files = streamOptions.maxFilesPerBatch() < Integer.MAX_VALUE;
    boolean rows = streamOptions.maxRowsPerBatch() < Long.MAX_VALUE;
    if (files && rows) {
      return ReadLimit.compositeLimit(new ReadLimit[] {
          ReadLimit.maxFiles(streamOptions.maxFilesPerBatch()), ReadLimit.maxRows(streamOptions.maxRowsPerBatch())});
    } else if (files) {
      return ReadLimit.maxFiles(streamOptions.maxFilesPerBatch());
    } else if (rows) {
      return ReadLimit.maxRows(streamOptions.maxRowsPerBatch());
    }
    return ReadLimit.allAvailable();
  }

  @Override
  public Offset latestOffset() {
    throw new UnsupportedOperationException("latestOffset(Offset, ReadLimit) should be called instead of this method");
  }

  @Override
  public synchronized Offset latestOffset(Offset startOffset, ReadLimit limit) {
    StreamingOffset start = FloeStreamOffset.of(startOffset);
    refresh();
    int[] files = {Integer.MAX_VALUE};
    long[] rows = {Long.MAX_VALUE};
    limits(limit, files, rows);
    MicroBatch batch = call(() -> scan.nextBatch(start, files[0], rows[0], cap));
    lastStart = start;
    return new FloeStreamOffset(batch.end());
  }

  /** Narrows {@code files} and {@code rows} to {@code limit}; limits Floe cannot measure (bytes, minimum rows) admit all. */
  private static void limits(ReadLimit limit, int[] files, long[] rows) {
    if (limit instanceof ReadMaxFiles max) {
      files[0] = Math.min(files[0], max.maxFiles());
    } else if (limit instanceof ReadMaxRows max) {
      rows[0] = Math.min(rows[0], max.maxRows());
    } else if (limit instanceof CompositeReadLimit composite) {
      for (ReadLimit l : composite.getReadLimits()) {
        limits(l, files, rows);
      }
    }
  }

  /** The offset after everything committed so far (progress reports show it as {@code latestOffset}). */
  @Override
  public synchronized Offset reportLatestOffset() {
    if (scan == null || lastStart == null) {
      return null;
    }
    try {
      return new FloeStreamOffset(scan.latestOffset(lastStart));
    } catch (FloeException e) {
      return null; // a snapshot the stream refuses lies ahead: the batch that reaches it reports the error
    }
  }

  /**
   * Caps the run at the table's current snapshot: every batch stops there, and the run ends once it
   * is read, whatever is appended meanwhile.
   */
  @Override
  public synchronized void prepareForTriggerAvailableNow() {
    refresh();
    Snapshot current = metadata.currentSnapshot();
    cap = current == null ? StreamingOffset.START : new StreamingOffset(current.snapshotId(), 0, false, true);
  }

  @Override
  public synchronized InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
    StreamingOffset start = FloeStreamOffset.of(startOffset);
    StreamingOffset end = FloeStreamOffset.of(endOffset);
    if (scan == null || (!end.isStart() && metadata.snapshot(end.snapshotId()) == null)) {
      refresh(); // a batch replayed after a restart, or planned by another instance
    }
    List<AppendedFile> files = call(() -> scan.planFiles(start, end));
    List<FileScanTask> tasks = new ArrayList<>(files.size());
    Map<Integer, Evaluator> partitionFilters = new HashMap<>();
    InclusiveMetricsEvaluator metricsFilter = filter.op() == Expression.Operation.TRUE ? null
        : new InclusiveMetricsEvaluator(schema, filter);
    for (AppendedFile f : files) {
      Evaluator partitions = metricsFilter == null ? null : partitionFilter(partitionFilters, f.spec());
      if (metricsFilter != null && !((partitions == null || partitions.eval(f.file().partition()))
          && metricsFilter.eval(f.file()))) {
        continue; // no row of the file can match the pushed filter
      }
      tasks.add(new FileScanTask(f.file(), List.of(), f.spec(), f.dataSequenceNumber()));
    }
    return FilePacking.pack(table, options, tasks, t -> null);
  }

  /** The filter projected onto {@code spec}'s partition values, or null when it cannot be (keep every file). */
  private Evaluator partitionFilter(Map<Integer, Evaluator> evaluators, PartitionSpec spec) {
    if (!evaluators.containsKey(spec.specId())) {
      Evaluator evaluator;
      try {
        evaluator = new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(filter));
      } catch (RuntimeException e) {
        evaluator = null;
      }
      evaluators.put(spec.specId(), evaluator);
    }
    return evaluators.get(spec.specId());
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new FloeCombinedReaderFactory(ReaderSetup.of(table, null, options)
        .files(SparkSchemas.withFieldIds(schema, requested)));
  }

  @Override
  public synchronized void commit(Offset end) {
    if (scan != null) {
      scan.forgetBefore(FloeStreamOffset.of(end));
    }
  }

  @Override
  public void stop() {}

  /** Reads the table's newest metadata; the scan keeps the files it already listed. */
  private void refresh() {
    TableMetadata newer = table.ops().refresh();
    if (newer == null) {
      throw SparkExceptions.atRuntime(StreamingErrors.tableGone(table.name()));
    }
    metadata = newer;
    scan = scan == null ? IncrementalAppendScan.of(table.name(), table.ops().io(), newer, streamOptions)
        : scan.refreshed(newer);
  }

  private static <T> T call(Supplier<T> planning) {
    try {
      return planning.get();
    } catch (FloeException e) {
      throw SparkExceptions.atRuntime(e);
    }
  }

  @Override
  public String toString() {
    return "FloeMicroBatchStream[" + table.name() + "]";
  }
}
