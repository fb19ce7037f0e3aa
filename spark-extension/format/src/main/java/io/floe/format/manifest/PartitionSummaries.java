package io.floe.format.manifest;

import io.floe.format.partition.PartitionData;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.List;

/** Accumulates the per-field partition summaries of a manifest: nulls, NaNs and lower/upper bounds. */
final class PartitionSummaries {
  private final List<Type> types;
  private final boolean[] containsNull;
  private final boolean[] containsNaN;
  private final Object[] lower;
  private final Object[] upper;

  PartitionSummaries(List<Type> types) {
    this.types = types;
    this.containsNull = new boolean[types.size()];
    this.containsNaN = new boolean[types.size()];
    this.lower = new Object[types.size()];
    this.upper = new Object[types.size()];
  }

  void update(PartitionData partition) {
    for (int i = 0; i < types.size(); i++) {
      Object value = partition.get(i);
      Type type = types.get(i);
      if (value == null) {
        containsNull[i] = true;
      } else if (isNaN(value)) {
        containsNaN[i] = true;
      } else {
        if (lower[i] == null || Conversions.compare(type, value, lower[i]) < 0) {
          lower[i] = value;
        }
        if (upper[i] == null || Conversions.compare(type, value, upper[i]) > 0) {
          upper[i] = value;
        }
      }
    }
  }

  private static boolean isNaN(Object value) {
    return (value instanceof Double && ((Double) value).isNaN()) || (value instanceof Float && ((Float) value).isNaN());
  }

  List<PartitionFieldSummary> summaries() {
    List<PartitionFieldSummary> out = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      out.add(new PartitionFieldSummary(containsNull[i], containsNaN[i],
          Conversions.toByteBuffer(types.get(i), lower[i]), Conversions.toByteBuffer(types.get(i), upper[i])));
    }
    return out;
  }
}
