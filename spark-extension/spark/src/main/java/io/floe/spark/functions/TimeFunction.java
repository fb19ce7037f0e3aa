package io.floe.spark.functions;

import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The common shape of {@code years}, {@code months}, {@code days} and {@code hours}: one date or
 * timestamp argument, bound to a date variant or a timestamp (micros) variant.
 */
abstract class TimeFunction implements UnboundFunction {
  private final String name;
  private final String transform;
  private final boolean acceptsDates;

  TimeFunction(String name, String transform, boolean acceptsDates) {
    this.name = name;
    this.transform = transform;
    this.acceptsDates = acceptsDates;
  }

  @Override
  public String name() {
    return name;
  }

  private String usage() {
    return "floe.system." + name + "(value)";
  }

  private String accepted() {
    return acceptsDates ? "date, timestamp or timestamp_ntz" : "timestamp or timestamp_ntz";
  }

  @Override
  public String description() {
    return usage() + " - the " + transform + " partition value of value (Iceberg spec, counted from"
        + " 1970-01-01T00:00 UTC); value: " + accepted();
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    DataType value = FloeScalarFunction.argumentTypes(inputType, usage())[0];
    if (value instanceof DateType && acceptsDates) {
      return fromDays();
    } else if (value instanceof TimestampType || value instanceof TimestampNTZType) {
      return fromMicros(value);
    }
    throw new UnsupportedOperationException("Cannot apply " + usage() + " to a value of type "
        + value.catalogString() + ": expected " + accepted());
  }

  /** The variant for dates (days since the epoch). */
  abstract BoundFunction fromDays();

  /** The variant for timestamps (micros since the epoch) of the given type. */
  abstract BoundFunction fromMicros(DataType timestampType);

  /** A bound variant: one argument of the given type, an int or date result. */
  abstract static class Bound extends FloeScalarFunction<Integer> {
    private final String name;
    private final DataType valueType;
    private final DataType resultType;

    Bound(String name, DataType valueType, DataType resultType) {
      this.name = name;
      this.valueType = valueType;
      this.resultType = resultType;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public DataType[] inputTypes() {
      return new DataType[] {valueType};
    }

    @Override
    public DataType resultType() {
      return resultType;
    }

    @Override
    public String canonicalName() {
      return "floe." + name + "(" + valueType.catalogString() + ")";
    }
  }
}
