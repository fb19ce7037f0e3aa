package io.floe.spark.write;

import io.floe.spark.util.SparkExceptions;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfoImpl;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.errors.QueryExecutionErrors;

/**
 * Writes a few rows in the calling thread (the driver) through a Floe write's own batch write, as
 * its one task would: the same writer factory, files, metrics, indexes and commit, and on failure
 * the same abort (the files written are deleted, the table stays at its snapshot). For inserts so
 * small that a Spark job would spend more time being scheduled than writing (see the planner
 * strategy {@code FloeLocalWriteStrategy}).
 */
public final class DriverWrite {
  private DriverWrite() {}

  /**
   * Whether {@code write} is a Floe append or overwrite (not the write of a row-level operation,
   * whose rows carry row ids and operations).
   */
  public static boolean isPlainWrite(Write write) {
    return write != null && write.getClass() == FloeWrite.class;
  }

  /**
   * Writes {@code rows} (in this order, as one task's input) with {@code write} and commits them.
   * A failure aborts the write and is rethrown as it was thrown.
   */
  public static void run(Write write, List<InternalRow> rows) {
    BatchWrite batch = write.toBatch();
    DataWriterFactory factory = batch.createBatchWriterFactory(new PhysicalWriteInfoImpl(1));
    WriterCommitMessage[] messages = new WriterCommitMessage[1];
    try {
      messages[0] = writeTask(factory, rows);
      batch.onDataWriterCommit(messages[0]);
      batch.commit(messages);
    } catch (Throwable cause) {
      try {
        batch.abort(messages);
      } catch (Throwable t) {
        cause.addSuppressed(t);
        throw SparkExceptions.rethrown(QueryExecutionErrors.writingJobFailedError(cause)); // as Spark's job path
      }
      throw SparkExceptions.rethrown(cause);
    }
  }

  /**
   * The one task: its writer's commit message, or the writer aborted (its files deleted) and the
   * failure thrown. The writer is closed either way; a failure to close is added to the task's own
   * failure rather than hiding it.
   */
  private static WriterCommitMessage writeTask(DataWriterFactory factory, List<InternalRow> rows) throws Exception {
    DataWriter<InternalRow> writer = factory.createWriter(0, 0);
    WriterCommitMessage message;
    try {
      for (InternalRow row : rows) {
        writer.write(row);
      }
      message = writer.commit();
    } catch (Throwable cause) {
      try {
        writer.abort();
      } catch (Throwable t) {
        cause.addSuppressed(t);
      }
      try {
        writer.close();
      } catch (Throwable t) {
        cause.addSuppressed(t);
      }
      throw cause;
    }
    writer.close();
    return message;
  }
}
