package io.floe.format.puffin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One blob as the footer of a Puffin file lists it: where it is ({@code offset}, {@code length}
 * as stored, i.e. compressed), how it is compressed, and what it describes.
 */
public final class BlobMetadata {
  private final String type;
  private final List<Integer> inputFields;
  private final long snapshotId;
  private final long sequenceNumber;
  private final long offset;
  private final long length;
  private final String compressionCodec;
  private final Map<String, String> properties;

  public BlobMetadata(String type, List<Integer> inputFields, long snapshotId, long sequenceNumber,
      long offset, long length, String compressionCodec, Map<String, String> properties) {
    this.type = Objects.requireNonNull(type, "Blob type is null");
    this.inputFields = List.copyOf(Objects.requireNonNull(inputFields, "Blob fields are null"));
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "Invalid blob position: offset " + offset + ", length " + length);
    }
    this.snapshotId = snapshotId;
    this.sequenceNumber = sequenceNumber;
    this.offset = offset;
    this.length = length;
    this.compressionCodec = compressionCodec;
    this.properties = properties == null ? Map.of()
        : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  public String type() {
    return type;
  }

  /** Field ids the blob was computed from ({@code fields}). */
  public List<Integer> inputFields() {
    return inputFields;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public long sequenceNumber() {
    return sequenceNumber;
  }

  public long offset() {
    return offset;
  }

  /** Stored length: the compressed length when the blob is compressed. */
  public long length() {
    return length;
  }

  /** {@code lz4}, {@code zstd}, or null when the blob is stored uncompressed. */
  public String compressionCodec() {
    return compressionCodec;
  }

  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BlobMetadata)) {
      return false;
    }
    BlobMetadata other = (BlobMetadata) o;
    return type.equals(other.type) && inputFields.equals(other.inputFields)
        && snapshotId == other.snapshotId && sequenceNumber == other.sequenceNumber
        && offset == other.offset && length == other.length
        && Objects.equals(compressionCodec, other.compressionCodec)
        && properties.equals(other.properties);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, inputFields, snapshotId, sequenceNumber, offset, length);
  }

  @Override
  public String toString() {
    return "BlobMetadata(" + type + ", offset=" + offset + ", length=" + length
        + (compressionCodec == null ? "" : ", " + compressionCodec) + ", properties=" + properties + ")";
  }
}
