package io.floe.spark.write;

import io.floe.format.deletes.RoaringPositionBitmap;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One task of a merge-on-read write: {@link #delete} adds the row's position to its data file's
 * bitmap, {@link #insert} writes the row through a fanout data writer (opened on the first
 * insert). The commit message carries the data files written and the serialized bitmaps; the
 * data writer's commit applies the write's marker protocol (see {@link FloeBatchWrite#writeMarker})
 * to the inserted files. Deleted positions are never written by tasks, so an aborted task leaves
 * nothing behind but its data files, which its data writer deletes.
 */
final class PositionDeltaWriter implements DeltaWriter<InternalRow> {
  private final Supplier<FloeDataWriter> dataWriters;
  private final int fileOrdinal;
  private final int posOrdinal;
  private final Map<String, RoaringPositionBitmap> deletes = new HashMap<>();
  private FloeDataWriter inserts = null;
  // rows of one data file arrive together: the last file's bitmap saves a String per deleted row
  private UTF8String lastFile = null;
  private RoaringPositionBitmap lastPositions = null;

  /** What one task reports: files of inserted rows, and deleted positions by data file path. */
  record Message(List<WrittenFile> inserted, Map<String, byte[]> deletedPositions)
      implements WriterCommitMessage, Serializable {
  }

  PositionDeltaWriter(Supplier<FloeDataWriter> dataWriters, int fileOrdinal, int posOrdinal) {
    this.dataWriters = dataWriters;
    this.fileOrdinal = fileOrdinal;
    this.posOrdinal = posOrdinal;
  }

  @Override
  public void delete(InternalRow metadata, InternalRow id) {
    UTF8String file = id.getUTF8String(fileOrdinal);
    if (lastFile == null || !lastFile.equals(file)) {
      lastFile = file.clone();
      lastPositions = deletes.computeIfAbsent(lastFile.toString(), path -> new RoaringPositionBitmap());
    }
    lastPositions.add(id.getLong(posOrdinal));
  }

  @Override
  public void update(InternalRow metadata, InternalRow id, InternalRow row) {
    throw new UnsupportedOperationException("Merge-on-read writes an update as a delete and an insert");
  }

  @Override
  public void insert(InternalRow row) throws IOException {
    if (inserts == null) {
      inserts = dataWriters.get();
    }
    inserts.write(row);
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    List<WrittenFile> inserted = List.of();
    if (inserts != null) {
      inserted = ((FloeCommitMessage) inserts.commit()).files();
    }
    Map<String, byte[]> serialized = new HashMap<>();
    deletes.forEach((path, positions) -> serialized.put(path, serialize(positions)));
    return new Message(inserted, serialized);
  }

  static byte[] serialize(RoaringPositionBitmap positions) {
    positions.runLengthEncode();
    long size = positions.serializedSizeInBytes();
    if (size > Integer.MAX_VALUE) {
      throw new IllegalStateException("Deleted positions too large to report: " + size + " bytes");
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    positions.serialize(buffer);
    return buffer.array();
  }

  static RoaringPositionBitmap deserialize(byte[] bytes, String dataFile) {
    return RoaringPositionBitmap.deserialize(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN),
        "deleted positions of " + dataFile);
  }

  @Override
  public void abort() {
    if (inserts != null) {
      inserts.abort();
    }
  }

  @Override
  public void close() throws IOException {
    if (inserts != null) {
      inserts.close();
    }
  }
}
