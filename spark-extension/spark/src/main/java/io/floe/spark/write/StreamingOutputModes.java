package io.floe.spark.write;

import java.util.UUID;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution;
import org.apache.spark.sql.streaming.OutputMode;

/**
 * The output mode of the streaming query a write belongs to. Spark does not tell a write builder
 * whether an append-like micro-batch write is in {@code append} or {@code update} mode (it calls
 * {@code build()} for both once the builder is a {@code SupportsStreamingUpdateAsAppend}); the
 * running query, registered in the shared state under the id the write carries, knows.
 */
final class StreamingOutputModes {
  private StreamingOutputModes() {}

  /** Whether {@code info} is a write of a running streaming query in {@code update} mode. */
  static boolean isUpdate(LogicalWriteInfo info) {
    UUID id;
    try {
      id = UUID.fromString(info.queryId());
    } catch (IllegalArgumentException e) {
      return false; // not a streaming query's id
    }
    SparkSession session = SparkSession.active();
    if (!(session instanceof org.apache.spark.sql.classic.SparkSession classic)) {
      return false;
    }
    StreamExecution query = classic.sharedState().activeStreamingQueries().get(id);
    return query != null && OutputMode.Update().equals(query.outputMode());
  }
}
