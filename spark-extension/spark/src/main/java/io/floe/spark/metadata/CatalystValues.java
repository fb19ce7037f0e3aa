package io.floe.spark.metadata;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.unsafe.types.UTF8String;

/** Java values of the format layer as Catalyst values for metadata-table rows; null stays null. */
final class CatalystValues {
  private CatalystValues() {}

  static UTF8String str(String value) {
    return value == null ? null : UTF8String.fromString(value);
  }

  /** Milliseconds since the epoch as a Catalyst timestamp (microseconds). */
  static Long micros(Long millis) {
    return millis == null ? null : millis * 1000L;
  }

  static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer copy = buffer.duplicate();
    byte[] out = new byte[copy.remaining()];
    copy.get(out);
    return out;
  }

  /** A map of field id to count; an empty map (which Floe writes as absent) is null. */
  static MapData counts(Map<Integer, Long> map) {
    if (map == null || map.isEmpty()) {
      return null;
    }
    Object[] keys = new Object[map.size()];
    Object[] values = new Object[map.size()];
    int i = 0;
    for (Map.Entry<Integer, Long> e : map.entrySet()) {
      keys[i] = e.getKey();
      values[i++] = e.getValue();
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  /** A map of field id to serialized bound; an empty map is null. */
  static MapData bounds(Map<Integer, ByteBuffer> map) {
    if (map == null || map.isEmpty()) {
      return null;
    }
    Object[] keys = new Object[map.size()];
    Object[] values = new Object[map.size()];
    int i = 0;
    for (Map.Entry<Integer, ByteBuffer> e : map.entrySet()) {
      keys[i] = e.getKey();
      values[i++] = bytes(e.getValue());
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  static MapData stringMap(Map<String, String> map) {
    if (map == null) {
      return null;
    }
    Object[] keys = new Object[map.size()];
    Object[] values = new Object[map.size()];
    int i = 0;
    for (Map.Entry<String, String> e : map.entrySet()) {
      keys[i] = str(e.getKey());
      values[i++] = str(e.getValue());
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  static GenericArrayData array(List<?> values) {
    return values == null ? null : new GenericArrayData(values.toArray());
  }
}
