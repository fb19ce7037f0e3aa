package io.floe.format.manifest;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;

/**
 * The fields of one manifest entry as decoded from Avro, before they are checked and built into a
 * {@link ManifestEntry}: filled either from a generic record ({@link ManifestReader}) or straight
 * from the block's bytes ({@link DirectEntryReader}), so both paths build entries the same way.
 * Null means absent. Mutable, used by one thread for one entry.
 */
final class RawEntry {
  Integer status;
  Long snapshotId;
  Long sequenceNumber;
  Long fileSequenceNumber;
  boolean hasFile;

  String path;
  String format;
  /** The partition record as Avro decoded it; null when the file has none. */
  GenericRecord partition;
  Long recordCount;
  Long fileSizeInBytes;
  Integer content;
  Map<Integer, Long> columnSizes;
  Map<Integer, Long> valueCounts;
  Map<Integer, Long> nullValueCounts;
  Map<Integer, Long> nanValueCounts;
  Map<Integer, ByteBuffer> lowerBounds;
  Map<Integer, ByteBuffer> upperBounds;
  ByteBuffer keyMetadata;
  List<Long> splitOffsets;
  List<Integer> equalityIds;
  Integer sortOrderId;
  Long firstRowId;
  String referencedDataFile;
  Long contentOffset;
  Long contentSizeInBytes;
}
