package io.floe.format.manifest;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Column statistics of a content file, keyed by field id. Bounds use the single-value
 * serialization. Missing maps are empty, and a missing count or bound means "unknown", never 0.
 */
public final class Metrics {
  private final Long recordCount;
  private final Map<Integer, Long> columnSizes;
  private final Map<Integer, Long> valueCounts;
  private final Map<Integer, Long> nullValueCounts;
  private final Map<Integer, Long> nanValueCounts;
  private final Map<Integer, ByteBuffer> lowerBounds;
  private final Map<Integer, ByteBuffer> upperBounds;

  public Metrics(Long recordCount, Map<Integer, Long> columnSizes, Map<Integer, Long> valueCounts,
      Map<Integer, Long> nullValueCounts, Map<Integer, Long> nanValueCounts,
      Map<Integer, ByteBuffer> lowerBounds, Map<Integer, ByteBuffer> upperBounds) {
    this.recordCount = recordCount;
    this.columnSizes = copy(columnSizes);
    this.valueCounts = copy(valueCounts);
    this.nullValueCounts = copy(nullValueCounts);
    this.nanValueCounts = copy(nanValueCounts);
    this.lowerBounds = copy(lowerBounds);
    this.upperBounds = copy(upperBounds);
  }

  private Metrics(Long recordCount, Map<Integer, Long> columnSizes, Map<Integer, Long> valueCounts,
      Map<Integer, Long> nullValueCounts, Map<Integer, Long> nanValueCounts,
      Map<Integer, ByteBuffer> lowerBounds, Map<Integer, ByteBuffer> upperBounds, boolean owned) {
    this.recordCount = recordCount;
    this.columnSizes = wrap(columnSizes);
    this.valueCounts = wrap(valueCounts);
    this.nullValueCounts = wrap(nullValueCounts);
    this.nanValueCounts = wrap(nanValueCounts);
    this.lowerBounds = wrap(lowerBounds);
    this.upperBounds = wrap(upperBounds);
  }

  /**
   * Metrics over maps nobody else holds (just decoded from a manifest): wrapped read-only, not
   * copied again.
   */
  static Metrics ofOwnedMaps(Map<Integer, Long> columnSizes, Map<Integer, Long> valueCounts,
      Map<Integer, Long> nullValueCounts, Map<Integer, Long> nanValueCounts,
      Map<Integer, ByteBuffer> lowerBounds, Map<Integer, ByteBuffer> upperBounds) {
    return new Metrics(null, columnSizes, valueCounts, nullValueCounts, nanValueCounts, lowerBounds, upperBounds,
        true);
  }

  private static <V> Map<Integer, V> wrap(Map<Integer, V> map) {
    if (map instanceof ColumnMap) {
      return map; // read-only already
    }
    return map == null || map.isEmpty() ? Collections.emptyMap() : Collections.unmodifiableMap(map);
  }

  public static Metrics empty(long recordCount) {
    return new Metrics(recordCount, null, null, null, null, null, null);
  }

  static <V> Map<Integer, V> copy(Map<Integer, V> map) {
    return map == null || map.isEmpty()
        ? Collections.emptyMap() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }

  /** The row count, or null when these metrics do not carry it. */
  public Long recordCount() {
    return recordCount;
  }

  public Map<Integer, Long> columnSizes() {
    return columnSizes;
  }

  public Map<Integer, Long> valueCounts() {
    return valueCounts;
  }

  public Map<Integer, Long> nullValueCounts() {
    return nullValueCounts;
  }

  public Map<Integer, Long> nanValueCounts() {
    return nanValueCounts;
  }

  public Map<Integer, ByteBuffer> lowerBounds() {
    return lowerBounds;
  }

  public Map<Integer, ByteBuffer> upperBounds() {
    return upperBounds;
  }
}
