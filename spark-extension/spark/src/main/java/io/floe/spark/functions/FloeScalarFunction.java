package io.floe.spark.functions;

import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructType;

/**
 * A bound Floe function. Two bound functions are equal when their canonical names are, so Spark
 * can tell that {@code floe.system.bucket(16, a)} and the same call elsewhere compute the same thing.
 */
abstract class FloeScalarFunction<R> implements ScalarFunction<R> {

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass()
        && ((FloeScalarFunction<?>) o).canonicalName().equals(canonicalName());
  }

  @Override
  public int hashCode() {
    return canonicalName().hashCode();
  }

  @Override
  public String toString() {
    return canonicalName();
  }

  /** The argument types of a call, after checking how many there are. */
  static DataType[] argumentTypes(StructType input, String usage) {
    int expected = usage.split(",").length;
    if (input.size() != expected) {
      throw new UnsupportedOperationException("Wrong number of arguments for " + usage + ": got " + input.size()
          + " (" + input.simpleString() + ")");
    }
    DataType[] types = new DataType[expected];
    for (int i = 0; i < expected; i++) {
      types[i] = input.fields()[i].dataType();
    }
    return types;
  }

  /** The number-of-buckets or width argument must be a tinyint, smallint or int (Spark casts it to int). */
  static void checkIntArgument(DataType type, String what, String usage) {
    if (!(type instanceof IntegerType || type instanceof ShortType || type instanceof ByteType)) {
      throw new UnsupportedOperationException("Invalid " + what + " for " + usage + ": expected tinyint, smallint"
          + " or int, got " + type.catalogString());
    }
  }
}
