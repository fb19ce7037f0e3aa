package io.floe.format.types;

/** A Floe (Iceberg) data type. Primitive types are singletons or small value objects; nested types carry field ids. */
public interface Type {

  enum TypeID {
    BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP, STRING, UUID, FIXED, BINARY, DECIMAL,
    STRUCT, LIST, MAP
  }

  TypeID typeId();

  default boolean isPrimitiveType() {
    return false;
  }

  default boolean isNestedType() {
    return !isPrimitiveType();
  }

  default boolean isStructType() {
    return typeId() == TypeID.STRUCT;
  }

  default Types.StructType asStructType() {
    throw new IllegalArgumentException("Not a struct type: " + this);
  }

  default Types.ListType asListType() {
    throw new IllegalArgumentException("Not a list type: " + this);
  }

  default Types.MapType asMapType() {
    throw new IllegalArgumentException("Not a map type: " + this);
  }
}
