package io.floe.spark.stats;

import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Schema;
import io.floe.spark.source.FloeParquetReader;
import io.floe.spark.util.DriverReadLimit;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkSchemas;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import org.apache.datasketches.theta.Sketch;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.RuntimeConfig;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Sketches a few small data files in the calling (driver) thread, without a Spark job: the files an
 * incremental statistics run adds to its base are often a 1% append, which a job would spend more
 * time scheduling than reading. Each file is read with the same vectorized reader and the same
 * per-batch {@link ColumnUpdater}s as a {@link TableSketchJob} task, so the sketches are the ones
 * the job would build. Only for files without deletes (appended files have none).
 */
final class LocalSketch {
  /**
   * Spark setting: appended rows up to which the driver sketches them itself (default
   * {@value #DEFAULT_MAX_ROWS}); more go to a Spark job. 0 always runs a job.
   */
  static final String MAX_ROWS_CONF = "spark.floe.statistics.local-max-rows";
  static final long DEFAULT_MAX_ROWS = 2_000_000L;
  /**
   * Spark setting: bytes of appended data files (their size on storage) up to which the driver
   * sketches them itself (default {@value #DEFAULT_MAX_BYTES}, 128 MiB): the row limit alone would
   * let rows of very wide or long values keep the driver reading gigabytes. 0 always runs a job.
   */
  static final String MAX_BYTES_CONF = "spark.floe.statistics.local-max-bytes";
  static final long DEFAULT_MAX_BYTES = 128L << 20;

  private LocalSketch() {}

  /** The limits the session's settings {@value #MAX_ROWS_CONF} and {@value #MAX_BYTES_CONF} set. */
  static DriverReadLimit limit(RuntimeConfig conf) {
    return DriverReadLimit.of(conf, MAX_ROWS_CONF, DEFAULT_MAX_ROWS, MAX_BYTES_CONF, DEFAULT_MAX_BYTES,
        "sketches appended files");
  }

  /**
   * The sketches of {@code columns} (by field id) over every row of {@code tasks}, one map per
   * thread (to be merged by the caller's union): files are read with {@code schema} (columns
   * matched by field id) on up to {@code parallelism} threads, the calling thread being one of
   * them; {@code tableName} and {@code snapshotId} name what was read when a file is missing.
   */
  static List<Map<Integer, Sketch>> run(List<FileScanTask> tasks, Schema schema, List<SketchColumn> columns,
      Configuration conf, int batchSize, int parallelism, String tableName, long snapshotId) {
    StructType all = SparkSchemas.convert(schema);
    StructField[] fields = new StructField[columns.size()];
    for (int i = 0; i < fields.length; i++) {
      fields[i] = all.apply(columns.get(i).name());
    }
    StructType readSchema = SparkSchemas.withFieldIds(schema, new StructType(fields));
    List<List<FileScanTask>> groups = balance(tasks, Math.max(1, Math.min(parallelism, tasks.size())));
    // the files' configured copies of conf, shared by all threads: files that look alike share one
    FloeParquetReader.SharedConfigurations shared = new FloeParquetReader.SharedConfigurations();
    Reader reader = group -> sketch(group, readSchema, columns, conf, shared, batchSize, tableName, snapshotId);
    List<ColumnUpdater[]> done = new ArrayList<>();
    if (groups.size() == 1) {
      done.add(reader.sketch(groups.get(0)));
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(groups.size() - 1, daemon());
      try {
        List<Future<ColumnUpdater[]>> running = new ArrayList<>();
        for (List<FileScanTask> group : groups.subList(1, groups.size())) {
          running.add(pool.submit(() -> reader.sketch(group)));
        }
        done.add(reader.sketch(groups.get(0)));
        for (Future<ColumnUpdater[]> future : running) {
          done.add(result(future));
        }
      } finally {
        pool.shutdownNow();
      }
    }
    List<Map<Integer, Sketch>> out = new ArrayList<>();
    for (ColumnUpdater[] updaters : done) {
      Map<Integer, Sketch> sketches = new LinkedHashMap<>();
      for (int i = 0; i < updaters.length; i++) {
        sketches.put(columns.get(i).fieldId(), updaters[i].sketch());
      }
      out.add(sketches);
    }
    return out;
  }

  /** Sketches the files of one thread. */
  private interface Reader {
    ColumnUpdater[] sketch(List<FileScanTask> files);
  }

  private static ColumnUpdater[] sketch(List<FileScanTask> files, StructType readSchema, List<SketchColumn> columns,
      Configuration conf, FloeParquetReader.SharedConfigurations shared, int batchSize, String tableName,
      long snapshotId) {
    ColumnUpdater[] updaters = new ColumnUpdater[columns.size()];
    for (int i = 0; i < updaters.length; i++) {
      updaters[i] = new ColumnUpdater(columns.get(i));
    }
    for (FileScanTask task : files) {
      String path = task.file().path();
      try (FloeParquetReader reader = FloeParquetReader.read(path).project(readSchema).conf(conf)
          .sharedConfigurations(shared).batchSize(batchSize).build()) {
        while (reader.next()) {
          ColumnarBatch batch = reader.get();
          int numRows = batch.numRows();
          for (int i = 0; i < updaters.length; i++) {
            updaters[i].update(batch.column(i), numRows);
          }
        }
      } catch (FileNotFoundException e) {
        FileNotFoundException named = SparkExceptions.missingFile("data file", tableName, snapshotId, path, e);
        throw new UncheckedIOException(named.getMessage(), named);
      } catch (IOException e) {
        throw new UncheckedIOException(e.getMessage(), e);
      }
    }
    return updaters;
  }

  /** {@code tasks} in {@code count} groups of about the same number of rows (largest files first). */
  static List<List<FileScanTask>> balance(List<FileScanTask> tasks, int count) {
    List<List<FileScanTask>> groups = new ArrayList<>();
    long[] rows = new long[count];
    for (int i = 0; i < count; i++) {
      groups.add(new ArrayList<>());
    }
    List<FileScanTask> sorted = new ArrayList<>(tasks);
    sorted.sort(Comparator.comparingLong((FileScanTask t) -> t.file().recordCount()).reversed());
    for (FileScanTask task : sorted) {
      int least = 0;
      for (int i = 1; i < count; i++) {
        if (rows[i] < rows[least]) {
          least = i;
        }
      }
      groups.get(least).add(task);
      rows[least] += task.file().recordCount();
    }
    return groups;
  }

  private static ColumnUpdater[] result(Future<ColumnUpdater[]> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while sketching appended files", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private static ThreadFactory daemon() {
    return runnable -> {
      Thread thread = new Thread(runnable, "floe-local-sketch");
      thread.setDaemon(true);
      return thread;
    };
  }
}
