package io.floe.spark.write;

import io.floe.format.manifest.BoundTruncation;
import io.floe.format.manifest.Metrics;
import io.floe.format.manifest.MetricsModes;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;

/**
 * Column metrics of a written file, from its footer: per leaf column (by field id) the summed
 * chunk sizes, value counts (nulls included) and null counts; and bounds in the single-value
 * serialization for primitive columns outside lists and maps, from chunk statistics (left out,
 * never guessed, when statistics are missing). Float and double NaN counts and bounds come from
 * the values seen while writing (see {@link ParquetWriteSchema.Leaf}).
 */
final class ParquetFooterMetrics {
  private ParquetFooterMetrics() {}

  /** What the chunks of one column add up to. */
  private static final class Column {
    final ParquetWriteSchema.Leaf leaf;
    final MetricsModes.Mode mode;
    long size;
    long values;
    long nulls;
    boolean nullsKnown = true;
    Object min;
    Object max;
    boolean minKnown = true;
    boolean maxKnown = true;

    Column(ParquetWriteSchema.Leaf leaf, MetricsModes.Mode mode) {
      this.leaf = leaf;
      this.mode = mode;
    }
  }

  /** The start offsets of the row groups, ascending: a data file's {@code split_offsets}. */
  static List<Long> splitOffsets(List<BlockMetaData> blocks) {
    List<Long> offsets = new ArrayList<>(blocks.size());
    for (BlockMetaData block : blocks) {
      offsets.add(block.getStartingPos());
    }
    Collections.sort(offsets);
    return Collections.unmodifiableList(offsets);
  }

  static Metrics collect(List<BlockMetaData> blocks, ParquetWriteSchema schema, MetricsModes modes) {
    return collect(blocks, schema, modes, true);
  }

  /**
   * {@code floatsSeen}: false for a file this writer did not write (imported with add_files), whose
   * float and double NaN counts and bounds are unknown: they are left out, never guessed.
   */
  static Metrics collect(List<BlockMetaData> blocks, ParquetWriteSchema schema, MetricsModes modes,
      boolean floatsSeen) {
    Map<ParquetWriteSchema.Leaf, Column> columns = new LinkedHashMap<>();
    for (ParquetWriteSchema.Leaf leaf : schema.leaves()) {
      columns.put(leaf, new Column(leaf, modes.modeFor(leaf.name)));
    }
    long recordCount = 0;
    for (BlockMetaData block : blocks) {
      recordCount += block.getRowCount();
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        ParquetWriteSchema.Leaf leaf = schema.leaf(chunk.getPath());
        Column column = leaf == null ? null : columns.get(leaf);
        if (column != null && column.mode.counts()) {
          add(column, chunk);
        }
      }
    }

    Map<Integer, Long> sizes = new HashMap<>();
    Map<Integer, Long> values = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Long> nans = new HashMap<>();
    Map<Integer, ByteBuffer> lowers = new HashMap<>();
    Map<Integer, ByteBuffer> uppers = new HashMap<>();
    for (Column column : columns.values()) {
      if (!column.mode.counts()) {
        continue;
      }
      int id = column.leaf.fieldId;
      sizes.put(id, column.size);
      values.put(id, column.values);
      if (column.nullsKnown) {
        nulls.put(id, column.nulls);
      }
      if (isFloating(column.leaf) && floatsSeen) {
        nans.put(id, column.leaf.nanCount);
      }
      if (!column.mode.bounds() || !column.leaf.boundsAllowed) {
        continue;
      }
      if (isFloating(column.leaf)) {
        if (floatsSeen) {
          putFloatingBounds(lowers, uppers, column.leaf);
        }
      } else {
        putBound(lowers, column, column.minKnown ? column.min : null, true);
        putBound(uppers, column, column.maxKnown ? column.max : null, false);
      }
    }
    return new Metrics(recordCount, sizes, values, nulls, nans, lowers, uppers);
  }

  private static void add(Column column, ColumnChunkMetaData chunk) {
    column.size += chunk.getTotalSize();
    column.values += chunk.getValueCount();
    Statistics<?> stats = chunk.getStatistics();
    if (stats == null || !stats.isNumNullsSet()) {
      column.nullsKnown = false;
      column.minKnown = false;
      column.maxKnown = false;
      return;
    }
    column.nulls += stats.getNumNulls();
    if (isFloating(column.leaf)) {
      return; // bounds from the writer: Parquet statistics may hold NaN
    }
    if (!stats.hasNonNullValue()) {
      if (stats.getNumNulls() < chunk.getValueCount()) { // values without min/max: stats incomplete
        column.minKnown = false;
        column.maxKnown = false;
      }
      return;
    }
    @SuppressWarnings("unchecked")
    Comparator<Object> order = (Comparator<Object>) (Comparator<?>) stats.comparator();
    Object min = stats.genericGetMin();
    Object max = stats.genericGetMax();
    if (column.min == null || order.compare(min, column.min) < 0) {
      column.min = min;
    }
    if (column.max == null || order.compare(max, column.max) > 0) {
      column.max = max;
    }
  }

  private static boolean isFloating(ParquetWriteSchema.Leaf leaf) {
    Type.TypeID typeId = leaf.type.typeId();
    return typeId == Type.TypeID.FLOAT || typeId == Type.TypeID.DOUBLE;
  }

  /** Float and double bounds come from the values the writer saw, NaN left out. */
  private static void putFloatingBounds(Map<Integer, ByteBuffer> lowers, Map<Integer, ByteBuffer> uppers,
      ParquetWriteSchema.Leaf leaf) {
    if (!leaf.hasNonNaN) {
      return;
    }
    boolean isFloat = leaf.type.typeId() == Type.TypeID.FLOAT;
    lowers.put(leaf.fieldId, Conversions.toByteBuffer(leaf.type, isFloat ? (Object) (float) leaf.min : leaf.min));
    uppers.put(leaf.fieldId, Conversions.toByteBuffer(leaf.type, isFloat ? (Object) (float) leaf.max : leaf.max));
  }

  private static void putBound(Map<Integer, ByteBuffer> bounds, Column column, Object raw, boolean lower) {
    if (raw == null) {
      return;
    }
    Types.PrimitiveType type = column.leaf.type;
    Object value = toFloeValue(type, raw, column.mode, lower);
    if (value != null) {
      bounds.put(column.leaf.fieldId, Conversions.toByteBuffer(type, value));
    }
  }

  /** A Parquet statistics value as the Floe Java value of the column type, truncated as the mode says. */
  private static Object toFloeValue(Types.PrimitiveType type, Object raw, MetricsModes.Mode mode, boolean lower) {
    boolean truncate = mode.kind() == MetricsModes.Kind.TRUNCATE;
    switch (type.typeId()) {
      case STRING:
        String text = ((Binary) raw).toStringUsingUTF8();
        if (!truncate) {
          return text;
        }
        return lower ? BoundTruncation.lowerString(text, mode.length()) : BoundTruncation.upperString(text, mode.length());
      case BINARY:
        byte[] bytes = ((Binary) raw).getBytes();
        if (truncate) {
          bytes = lower ? BoundTruncation.lowerBinary(bytes, mode.length()) : BoundTruncation.upperBinary(bytes, mode.length());
        }
        return bytes == null ? null : ByteBuffer.wrap(bytes);
      case FIXED:
        return ByteBuffer.wrap(((Binary) raw).getBytes());
      case UUID:
        ByteBuffer uuid = ((Binary) raw).toByteBuffer();
        return new UUID(uuid.getLong(uuid.position()), uuid.getLong(uuid.position() + 8));
      case DECIMAL:
        int scale = ((Types.DecimalType) type).scale();
        if (raw instanceof Integer) {
          return BigDecimal.valueOf((Integer) raw, scale);
        } else if (raw instanceof Long) {
          return BigDecimal.valueOf((Long) raw, scale);
        }
        return new BigDecimal(new BigInteger(((Binary) raw).getBytes()), scale);
      default: // boolean, int, date (Integer); long, time, timestamp (Long micros)
        return raw;
    }
  }
}
