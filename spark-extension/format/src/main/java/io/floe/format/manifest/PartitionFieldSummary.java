package io.floe.format.manifest;

import java.nio.ByteBuffer;

/**
 * What a manifest's files hold for one partition field (record {@code r508}): whether any value is
 * null or NaN and the lower and upper bounds, serialized as the partition value type.
 */
public final class PartitionFieldSummary {
  private final boolean containsNull;
  private final Boolean containsNaN;
  private final ByteBuffer lowerBound;
  private final ByteBuffer upperBound;

  public PartitionFieldSummary(boolean containsNull, Boolean containsNaN, ByteBuffer lowerBound,
      ByteBuffer upperBound) {
    this.containsNull = containsNull;
    this.containsNaN = containsNaN;
    this.lowerBound = lowerBound == null ? null : lowerBound.asReadOnlyBuffer();
    this.upperBound = upperBound == null ? null : upperBound.asReadOnlyBuffer();
  }

  public boolean containsNull() {
    return containsNull;
  }

  /** Null when the writer did not record it (unknown). */
  public Boolean containsNaN() {
    return containsNaN;
  }

  public ByteBuffer lowerBound() {
    return lowerBound == null ? null : lowerBound.duplicate();
  }

  public ByteBuffer upperBound() {
    return upperBound == null ? null : upperBound.duplicate();
  }

  @Override
  public String toString() {
    return "PartitionFieldSummary{nulls=" + containsNull + ", nans=" + containsNaN
        + ", bounds=" + (lowerBound != null) + "/" + (upperBound != null) + "}";
  }
}
