package io.floe.spark.stats;

import io.floe.format.stats.ThetaSketches;
import io.floe.format.stats.ThetaUpdates;
import java.util.BitSet;
import java.util.UUID;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The sketch of one column in one task, fed a batch at a time (or a row at a time when the scan
 * is not columnar) without boxing: values are hashed as their single-value serialization through
 * {@link ThetaUpdates}. A dictionary-encoded batch updates the sketch once per distinct dictionary
 * entry of the batch (a theta sketch ignores repeats, so the result is the same).
 */
final class ColumnUpdater {
  private static final int DECIMAL_LONG_DIGITS = 18;
  private static final int UUID_LENGTH = 36;

  private final SketchColumn column;
  private final UpdateSketch sketch = ThetaSketches.newSketch();
  private final ThetaUpdates updates = new ThetaUpdates();
  private final BitSet seenDictIds = new BitSet();

  ColumnUpdater(SketchColumn column) {
    this.column = column;
  }

  UpdateSketch sketch() {
    return sketch;
  }

  /** Adds the first {@code numRows} values of {@code vector}. */
  void update(ColumnVector vector, int numRows) {
    if (vector instanceof WritableColumnVector && ((WritableColumnVector) vector).hasDictionary()) {
      updateDictionaryEncoded((WritableColumnVector) vector, numRows);
      return;
    }
    boolean nulls = vector.hasNull();
    switch (column.kind()) {
      case INT:
        for (int i = 0; i < numRows; i++) {
          if (!nulls || !vector.isNullAt(i)) {
            updates.updateInt(sketch, vector.getInt(i));
          }
        }
        break;
      case LONG:
        for (int i = 0; i < numRows; i++) {
          if (!nulls || !vector.isNullAt(i)) {
            updates.updateLong(sketch, vector.getLong(i));
          }
        }
        break;
      case DOUBLE:
        for (int i = 0; i < numRows; i++) {
          if (!nulls || !vector.isNullAt(i)) {
            updates.updateDouble(sketch, vector.getDouble(i));
          }
        }
        break;
      default:
        for (int i = 0; i < numRows; i++) {
          if (!nulls || !vector.isNullAt(i)) {
            updateValue(vector, i);
          }
        }
    }
  }

  private void updateDictionaryEncoded(WritableColumnVector vector, int numRows) {
    WritableColumnVector ids = vector.getDictionaryIds();
    seenDictIds.clear();
    boolean nulls = vector.hasNull();
    for (int i = 0; i < numRows; i++) {
      if (!nulls || !vector.isNullAt(i)) {
        int id = ids.getDictId(i);
        if (!seenDictIds.get(id)) {
          seenDictIds.set(id);
          updateValue(vector, i);
        }
      }
    }
  }

  private void updateValue(ColumnVector vector, int row) {
    switch (column.kind()) {
      case BOOLEAN:
        updates.updateBoolean(sketch, vector.getBoolean(row));
        break;
      case INT:
        updates.updateInt(sketch, vector.getInt(row));
        break;
      case LONG:
        updates.updateLong(sketch, vector.getLong(row));
        break;
      case FLOAT:
        updates.updateFloat(sketch, vector.getFloat(row));
        break;
      case DOUBLE:
        updates.updateDouble(sketch, vector.getDouble(row));
        break;
      case STRING:
        updateString(vector.getUTF8String(row));
        break;
      case UUID:
        updateUuid(vector.getUTF8String(row));
        break;
      case BINARY:
        updates.updateBytes(sketch, vector.getBinary(row));
        break;
      case DECIMAL:
        updateDecimal(vector.getDecimal(row, column.precision(), column.scale()));
        break;
      default:
        throw new IllegalStateException("Unknown sketch kind " + column.kind());
    }
  }

  /** Adds the value at {@code ordinal} of {@code row} unless it is null. */
  void update(InternalRow row, int ordinal) {
    if (row.isNullAt(ordinal)) {
      return;
    }
    switch (column.kind()) {
      case BOOLEAN:
        updates.updateBoolean(sketch, row.getBoolean(ordinal));
        break;
      case INT:
        updates.updateInt(sketch, row.getInt(ordinal));
        break;
      case LONG:
        updates.updateLong(sketch, row.getLong(ordinal));
        break;
      case FLOAT:
        updates.updateFloat(sketch, row.getFloat(ordinal));
        break;
      case DOUBLE:
        updates.updateDouble(sketch, row.getDouble(ordinal));
        break;
      case STRING:
        updateString(row.getUTF8String(ordinal));
        break;
      case UUID:
        updateUuid(row.getUTF8String(ordinal));
        break;
      case BINARY:
        updates.updateBytes(sketch, row.getBinary(ordinal));
        break;
      case DECIMAL:
        updateDecimal(row.getDecimal(ordinal, column.precision(), column.scale()));
        break;
      default:
        throw new IllegalStateException("Unknown sketch kind " + column.kind());
    }
  }

  private void updateString(UTF8String value) {
    int length = value.numBytes();
    if (length > 0) {
      byte[] bytes = updates.scratch(length); // reused: no allocation per value
      value.writeToMemory(bytes, Platform.BYTE_ARRAY_OFFSET);
      updates.updateBytes(sketch, bytes);
    }
  }

  /** Parses the canonical 36-character form in place (no String or UUID per value). */
  private void updateUuid(UTF8String value) {
    if (value.numBytes() == UUID_LENGTH && value.getByte(8) == '-' && value.getByte(13) == '-'
        && value.getByte(18) == '-' && value.getByte(23) == '-') {
      long a = hex(value, 0, 8);
      long b = hex(value, 9, 4);
      long c = hex(value, 14, 4);
      long d = hex(value, 19, 4);
      long e = hex(value, 24, 12);
      if ((a | b | c | d | e) >= 0) {
        updates.updateUuid(sketch, a << 32 | b << 16 | c, d << 48 | e);
        return;
      }
    }
    UUID uuid = UUID.fromString(value.toString()); // other forms UUID accepts, or its error
    updates.updateUuid(sketch, uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
  }

  /** The {@code digits} hex digits at {@code start} (at most 12), or -1 if one is not a hex digit. */
  private static long hex(UTF8String value, int start, int digits) {
    long out = 0;
    for (int i = start; i < start + digits; i++) {
      int digit = Character.digit(value.getByte(i), 16);
      if (digit < 0) {
        return -1;
      }
      out = out << 4 | digit;
    }
    return out;
  }

  private void updateDecimal(Decimal value) {
    if (column.precision() <= DECIMAL_LONG_DIGITS) {
      updates.updateUnscaled(sketch, value.toUnscaledLong());
    } else {
      sketch.update(value.toJavaBigDecimal().unscaledValue().toByteArray());
    }
  }
}
