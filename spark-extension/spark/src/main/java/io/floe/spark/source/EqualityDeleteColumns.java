package io.floe.spark.source;

import io.floe.spark.util.SparkSchemas;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The columns an equality delete compares, located by field id in Spark row types whose fields
 * carry their ids ({@link SparkSchemas#FIELD_ID_KEY}):
 * <ul>
 *   <li>{@link #select}: the part of the table's row type holding given field ids (structs pruned
 *       to the needed children), read from delete files and added to the data file's read;
 *   <li>{@link #merge}: a data file's requested columns plus the equality columns the query did not
 *       request (appended at the end, or as extra trailing children of a requested struct), so that
 *       they are read for the check; {@link PrunedStructVector} then hides those extra children;
 *   <li>{@link #pathOf}: the ordinals leading to a field, to find its vector in a batch.
 * </ul>
 * Equality columns are primitive (top-level or inside structs, never inside lists or maps).
 */
final class EqualityDeleteColumns {
  private EqualityDeleteColumns() {}

  static int fieldId(StructField field) {
    return field.metadata().contains(SparkSchemas.FIELD_ID_KEY)
        ? (int) field.metadata().getLong(SparkSchemas.FIELD_ID_KEY) : -1;
  }

  /**
   * The fields of {@code tableType} with the given ids, keeping their enclosing structs (pruned to
   * the selected children), in table order. {@code context} names the delete file in errors.
   */
  static StructType select(StructType tableType, Collection<Integer> ids, String context) {
    Set<Integer> wanted = new LinkedHashSet<>(ids);
    Set<Integer> found = new LinkedHashSet<>();
    StructType selected = select(tableType, wanted, found, context, "");
    for (int id : wanted) {
      if (!found.contains(id)) {
        throw new IllegalArgumentException("Cannot apply " + context + ": its equality field id " + id
            + " is not a column of the table schema");
      }
    }
    return selected;
  }

  private static StructType select(StructType struct, Set<Integer> wanted, Set<Integer> found, String context,
      String prefix) {
    List<StructField> out = new ArrayList<>();
    for (StructField field : struct.fields()) {
      int id = fieldId(field);
      String name = prefix + field.name();
      if (wanted.contains(id)) {
        if (!isSupported(field.dataType())) {
          throw new IllegalArgumentException("Cannot apply " + context + ": its equality field " + name + " (id "
              + id + ") has type " + field.dataType().sql() + ", and equality deletes compare primitive columns");
        }
        found.add(id);
        out.add(field);
      } else if (field.dataType() instanceof StructType child) {
        StructType sub = select(child, wanted, found, context, name + ".");
        if (sub.size() > 0) {
          out.add(new StructField(field.name(), sub, field.nullable(), field.metadata()));
        }
      } else if (containsAny(field.dataType(), wanted)) {
        throw new IllegalArgumentException("Cannot apply " + context + ": an equality field id is inside "
            + name + " (" + field.dataType().sql() + "), and equality deletes cannot compare fields of lists or maps");
      }
    }
    return new StructType(out.toArray(new StructField[0]));
  }

  private static boolean containsAny(DataType type, Set<Integer> ids) {
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        if (ids.contains(fieldId(f)) || containsAny(f.dataType(), ids)) {
          return true;
        }
      }
    } else if (type instanceof ArrayType array) {
      return containsAny(array.elementType(), ids);
    } else if (type instanceof MapType map) {
      return containsAny(map.keyType(), ids) || containsAny(map.valueType(), ids);
    }
    return false;
  }

  /** Whether {@link EqualityDeleteSet} can compare values of this type. */
  static boolean isSupported(DataType type) {
    return type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof LongType || type instanceof FloatType
        || type instanceof DoubleType || type instanceof DateType || type instanceof TimestampType
        || type instanceof TimestampNTZType || type instanceof DecimalType || type instanceof StringType
        || type instanceof BinaryType;
  }

  /**
   * {@code data} (the requested file columns) with the fields of {@code equality} it lacks: a
   * requested struct gains the missing children at its end, other columns are appended. The first
   * {@code data.size()} fields keep their order and names.
   */
  static StructType merge(StructType data, StructType equality) {
    List<StructField> fields = new ArrayList<>(List.of(data.fields()));
    for (StructField extra : equality.fields()) {
      int id = fieldId(extra);
      int at = indexOf(fields, id);
      if (at < 0) {
        fields.add(extra);
      } else if (fields.get(at).dataType() instanceof StructType have && extra.dataType() instanceof StructType more) {
        StructField f = fields.get(at);
        fields.set(at, new StructField(f.name(), merge(have, more), f.nullable(), f.metadata()));
      }
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  private static int indexOf(List<StructField> fields, int id) {
    for (int i = 0; i < fields.size(); i++) {
      if (id >= 0 && fieldId(fields.get(i)) == id) {
        return i;
      }
    }
    return -1;
  }

  /** The ordinals from the top of {@code type} to the field with {@code id}; null when absent. */
  static int[] pathOf(StructType type, int id) {
    StructField[] fields = type.fields();
    for (int i = 0; i < fields.length; i++) {
      if (fieldId(fields[i]) == id) {
        return new int[] {i};
      }
      if (fields[i].dataType() instanceof StructType child) {
        int[] rest = pathOf(child, id);
        if (rest != null) {
          int[] path = new int[rest.length + 1];
          path[0] = i;
          System.arraycopy(rest, 0, path, 1, rest.length);
          return path;
        }
      }
    }
    return null;
  }

  /** The field at {@code path} in {@code type}. */
  static StructField fieldAt(StructType type, int[] path) {
    StructField field = null;
    StructType current = type;
    for (int ordinal : path) {
      field = current.fields()[ordinal];
      if (field.dataType() instanceof StructType child) {
        current = child;
      }
    }
    return field;
  }

  /**
   * A struct vector read with extra trailing children (equality columns the query did not request)
   * seen as the requested struct: its type is the requested one and {@link #getChild} returns the
   * delegate's children of the same ordinals, themselves pruned where they were extended too.
   */
  static final class PrunedStructVector extends ColumnVector {
    private final ColumnVector delegate;
    private final ColumnVector[] children;

    PrunedStructVector(ColumnVector delegate, StructType requested) {
      super(requested);
      this.delegate = delegate;
      StructField[] fields = requested.fields();
      this.children = new ColumnVector[fields.length];
      for (int i = 0; i < fields.length; i++) {
        ColumnVector child = delegate.getChild(i);
        children[i] = fields[i].dataType().equals(child.dataType())
            ? child : new PrunedStructVector(child, (StructType) fields[i].dataType());
      }
    }

    @Override
    public void close() {
      // the delegate belongs to the Parquet reader
    }

    @Override
    public boolean hasNull() {
      return delegate.hasNull();
    }

    @Override
    public int numNulls() {
      return delegate.numNulls();
    }

    @Override
    public boolean isNullAt(int rowId) {
      return delegate.isNullAt(rowId);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      return children[ordinal];
    }

    private static UnsupportedOperationException notAStruct(String what) {
      return new UnsupportedOperationException("Cannot read " + what + " from a struct vector");
    }

    @Override
    public boolean getBoolean(int rowId) {
      throw notAStruct("a boolean");
    }

    @Override
    public byte getByte(int rowId) {
      throw notAStruct("a byte");
    }

    @Override
    public short getShort(int rowId) {
      throw notAStruct("a short");
    }

    @Override
    public int getInt(int rowId) {
      throw notAStruct("an int");
    }

    @Override
    public long getLong(int rowId) {
      throw notAStruct("a long");
    }

    @Override
    public float getFloat(int rowId) {
      throw notAStruct("a float");
    }

    @Override
    public double getDouble(int rowId) {
      throw notAStruct("a double");
    }

    @Override
    public ColumnarArray getArray(int rowId) {
      throw notAStruct("an array");
    }

    @Override
    public ColumnarMap getMap(int rowId) {
      throw notAStruct("a map");
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      throw notAStruct("a decimal");
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      throw notAStruct("a string");
    }

    @Override
    public byte[] getBinary(int rowId) {
      throw notAStruct("a binary");
    }
  }
}
