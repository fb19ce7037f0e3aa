package io.floe.format.puffin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A blob to write: its type, the field ids it describes, the snapshot and sequence number it
 * was computed from (-1 when not tied to a snapshot, as for deletion vectors), its uncompressed
 * bytes, properties, and optionally a codec overriding the writer's default.
 *
 * <pre>
 *   Blob blob = Blob.of(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1, List.of(3), snapshotId, seq, bytes)
 *       .withProperties(Map.of("ndv", "42"))
 *       .withCompression(PuffinCompressionCodec.ZSTD);
 * </pre>
 */
public final class Blob {
  private final String type;
  private final List<Integer> inputFields;
  private final long snapshotId;
  private final long sequenceNumber;
  private final byte[] data;
  private final PuffinCompressionCodec requestedCompression;
  private final Map<String, String> properties;

  private Blob(String type, List<Integer> inputFields, long snapshotId, long sequenceNumber,
      byte[] data, PuffinCompressionCodec requestedCompression, Map<String, String> properties) {
    this.type = Objects.requireNonNull(type, "Blob type is null");
    this.inputFields = List.copyOf(Objects.requireNonNull(inputFields, "Blob fields are null"));
    this.snapshotId = snapshotId;
    this.sequenceNumber = sequenceNumber;
    this.data = Objects.requireNonNull(data, "Blob data is null");
    this.requestedCompression = requestedCompression;
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  public static Blob of(String type, List<Integer> inputFields, long snapshotId, long sequenceNumber,
      byte[] data) {
    return new Blob(type, inputFields, snapshotId, sequenceNumber, data, null, Map.of());
  }

  public Blob withProperties(Map<String, String> newProperties) {
    return new Blob(type, inputFields, snapshotId, sequenceNumber, data, requestedCompression,
        Objects.requireNonNull(newProperties, "Blob properties are null"));
  }

  /** Compresses this blob with {@code codec} whatever the writer's default. */
  public Blob withCompression(PuffinCompressionCodec codec) {
    return new Blob(type, inputFields, snapshotId, sequenceNumber, data,
        Objects.requireNonNull(codec, "Codec is null"), properties);
  }

  public String type() {
    return type;
  }

  public List<Integer> inputFields() {
    return inputFields;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public long sequenceNumber() {
    return sequenceNumber;
  }

  /** The uncompressed bytes (not copied: do not modify). */
  public byte[] data() {
    return data;
  }

  /** The codec asked for, or null to use the writer's default. */
  public PuffinCompressionCodec requestedCompression() {
    return requestedCompression;
  }

  public Map<String, String> properties() {
    return properties;
  }
}
