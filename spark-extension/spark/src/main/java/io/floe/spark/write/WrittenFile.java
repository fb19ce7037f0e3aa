package io.floe.spark.write;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A data file a task wrote, in a serializable form the driver turns into a {@link DataFile}. */
public record WrittenFile(String path, long fileSizeInBytes, int specId, Object[] partition, long recordCount,
    Map<Integer, Long> columnSizes, Map<Integer, Long> valueCounts, Map<Integer, Long> nullValueCounts,
    Map<Integer, Long> nanValueCounts, Map<Integer, byte[]> lowerBounds, Map<Integer, byte[]> upperBounds,
    List<Long> splitOffsets, Map<Integer, FileValueCollector.Gathered> indexValues) implements Serializable {

  /** {@code indexValues}: per indexed field id, the file's values (see {@link FileValueCollector}). */
  static WrittenFile of(String path, long size, int specId, Object[] partition, Metrics metrics, List<Long> splits,
      Map<Integer, FileValueCollector.Gathered> indexValues) {
    return new WrittenFile(path, size, specId, serializable(partition), metrics.recordCount(),
        new HashMap<>(metrics.columnSizes()), new HashMap<>(metrics.valueCounts()),
        new HashMap<>(metrics.nullValueCounts()), new HashMap<>(metrics.nanValueCounts()),
        toBytes(metrics.lowerBounds()), toBytes(metrics.upperBounds()), splits == null ? null : List.copyOf(splits),
        new HashMap<>(indexValues));
  }

  private static Object[] serializable(Object[] partition) {
    Object[] out = partition.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i] instanceof ByteBuffer) {
        out[i] = new SerializableBytes(toArray((ByteBuffer) out[i]));
      }
    }
    return out;
  }

  private static Map<Integer, byte[]> toBytes(Map<Integer, ByteBuffer> bounds) {
    Map<Integer, byte[]> out = new HashMap<>();
    bounds.forEach((k, v) -> out.put(k, toArray(v)));
    return out;
  }

  private static byte[] toArray(ByteBuffer buffer) {
    ByteBuffer dup = buffer.duplicate();
    byte[] bytes = new byte[dup.remaining()];
    dup.get(bytes);
    return bytes;
  }

  private static Map<Integer, ByteBuffer> toBuffers(Map<Integer, byte[]> bounds) {
    Map<Integer, ByteBuffer> out = new HashMap<>();
    bounds.forEach((k, v) -> out.put(k, ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN)));
    return out;
  }

  /** Binary partition values travel as this wrapper, since ByteBuffer is not serializable. */
  record SerializableBytes(byte[] bytes) implements Serializable {
  }

  DataFile toDataFile(PartitionSpec spec) {
    Object[] values = partition.clone();
    for (int i = 0; i < values.length; i++) {
      if (values[i] instanceof SerializableBytes) {
        values[i] = ByteBuffer.wrap(((SerializableBytes) values[i]).bytes());
      }
    }
    Metrics metrics = new Metrics(recordCount, columnSizes, valueCounts, nullValueCounts, nanValueCounts,
        toBuffers(lowerBounds), toBuffers(upperBounds));
    return DataFile.builder(spec)
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.of(values))
        .withRecordCount(recordCount)
        .withFileSizeInBytes(fileSizeInBytes)
        .withMetrics(metrics)
        .withSplitOffsets(splitOffsets)
        .build();
  }
}
