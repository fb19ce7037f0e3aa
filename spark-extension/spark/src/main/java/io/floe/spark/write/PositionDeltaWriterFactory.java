package io.floe.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;

/**
 * Creates the tasks' {@link PositionDeltaWriter}s: inserted rows go to fanout data writers of
 * {@code inserts}; {@code fileOrdinal} and {@code posOrdinal} locate {@code _file} and {@code _pos}
 * in the row id Spark passes to {@code delete}.
 */
final class PositionDeltaWriterFactory implements DeltaWriterFactory {
  private final FloeDataWriterFactory inserts;
  private final int fileOrdinal;
  private final int posOrdinal;

  PositionDeltaWriterFactory(FloeDataWriterFactory inserts, int fileOrdinal, int posOrdinal) {
    this.inserts = inserts;
    this.fileOrdinal = fileOrdinal;
    this.posOrdinal = posOrdinal;
  }

  @Override
  public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new PositionDeltaWriter(() -> (FloeDataWriter) inserts.createWriter(partitionId, taskId), fileOrdinal,
        posOrdinal);
  }
}
