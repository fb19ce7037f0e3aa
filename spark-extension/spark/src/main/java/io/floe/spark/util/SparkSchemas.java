package io.floe.spark.util;

import io.floe.format.FloeException;
import io.floe.format.SchemaErrors;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VarcharType;

/**
 * Converts between Spark's {@link StructType} and Floe's {@link Schema}.
 *
 * <p>Floe to Spark: every {@link StructField} carries its field id under {@link #FIELD_ID_KEY} (the
 * key Spark's Parquet reader uses to match columns by id) and its doc as the comment. Floe types
 * Spark lacks are widened: {@code time} becomes {@code LongType} holding microseconds since
 * midnight, {@code uuid} becomes {@code StringType} (the canonical 36-character form) and
 * {@code fixed[L]} becomes {@code BinaryType}.
 *
 * <p>Spark to Floe (CREATE TABLE): byte and short widen to {@code int}, char/varchar become
 * {@code string} (the catalog refuses them first, see {@link #refuseCharVarchar}),
 * {@code TimestampType} is {@code timestamptz} and {@code TimestampNTZType} is {@code timestamp}.
 * Field ids are placeholders (each struct's fields first, then their children); the table format
 * assigns fresh ids when it creates the table.
 */
public final class SparkSchemas {
  /** StructField metadata key holding the Floe field id (a long). */
  public static final String FIELD_ID_KEY = "parquet.field.id";

  private static final String COMMENT_KEY = "comment";
  /** Where Spark keeps a CHAR/VARCHAR column's declared type when the column itself is a string. */
  private static final String CHAR_VARCHAR_KEY = "__CHAR_VARCHAR_TYPE_STRING";
  private static final String CHAR_VARCHAR_AS_STRING = "spark.sql.legacy.charVarcharAsString";

  private SparkSchemas() {}

  /** The Spark row type of a Floe schema, with field ids and docs in the field metadata. */
  public static StructType convert(Schema schema) {
    return toSpark(schema.asStruct());
  }

  /** A Floe schema with placeholder ids for a Spark row type; rejects types Floe cannot store. */
  public static Schema convert(StructType sparkType) {
    int[] nextId = {1};
    return new Schema(toFloe(sparkType, "", nextId).fields());
  }

  /**
   * The requested (possibly pruned) Spark row type with the Floe field id of each field, nested ones
   * included, matched by name (exact, else case-insensitive). Fields the schema lacks, such as
   * metadata columns, are kept as they are.
   */
  public static StructType withFieldIds(Schema schema, StructType requested) {
    return withIds(schema.asStruct(), requested);
  }

  /** The Spark type of a Floe type (nested fields keep their ids in metadata). */
  public static DataType convert(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return DataTypes.BooleanType;
      case INTEGER:
        return DataTypes.IntegerType;
      case LONG:
      case TIME:
        return DataTypes.LongType;
      case FLOAT:
        return DataTypes.FloatType;
      case DOUBLE:
        return DataTypes.DoubleType;
      case DATE:
        return DataTypes.DateType;
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? DataTypes.TimestampType : DataTypes.TimestampNTZType;
      case STRING:
      case UUID:
        return DataTypes.StringType;
      case FIXED:
      case BINARY:
        return DataTypes.BinaryType;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return DataTypes.createDecimalType(decimal.precision(), decimal.scale());
      case STRUCT:
        return toSpark(type.asStructType());
      case LIST:
        Types.ListType list = type.asListType();
        return DataTypes.createArrayType(convert(list.elementType()), list.isElementOptional());
      case MAP:
        Types.MapType map = type.asMapType();
        return DataTypes.createMapType(convert(map.keyType()), convert(map.valueType()), map.isValueOptional());
      default:
        throw new IllegalArgumentException("Cannot convert unknown type to Spark: " + type);
    }
  }

  private static StructType toSpark(Types.StructType struct) {
    List<StructField> fields = new ArrayList<>(struct.fields().size());
    for (Types.NestedField field : struct.fields()) {
      MetadataBuilder metadata = new MetadataBuilder().putLong(FIELD_ID_KEY, field.fieldId());
      if (field.doc() != null) {
        metadata.putString(COMMENT_KEY, field.doc());
      }
      fields.add(new StructField(field.name(), convert(field.type()), field.isOptional(), metadata.build()));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  private static StructType withIds(Types.StructType struct, StructType requested) {
    StructField[] fields = requested.fields();
    StructField[] result = new StructField[fields.length];
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      Types.NestedField floe = find(struct, field.name());
      if (floe == null) {
        result[i] = field;
      } else {
        Metadata metadata = new MetadataBuilder().withMetadata(field.metadata())
            .putLong(FIELD_ID_KEY, floe.fieldId()).build();
        result[i] = new StructField(field.name(), withIds(floe.type(), field.dataType()), field.nullable(), metadata);
      }
    }
    return new StructType(result);
  }

  private static DataType withIds(Type type, DataType requested) {
    if (type.isStructType() && requested instanceof StructType) {
      return withIds(type.asStructType(), (StructType) requested);
    } else if (type.typeId() == Type.TypeID.LIST && requested instanceof ArrayType) {
      ArrayType array = (ArrayType) requested;
      return DataTypes.createArrayType(withIds(type.asListType().elementType(), array.elementType()),
          array.containsNull());
    } else if (type.typeId() == Type.TypeID.MAP && requested instanceof MapType) {
      MapType map = (MapType) requested;
      return DataTypes.createMapType(withIds(type.asMapType().keyType(), map.keyType()),
          withIds(type.asMapType().valueType(), map.valueType()), map.valueContainsNull());
    }
    return requested;
  }

  private static Types.NestedField find(Types.StructType struct, String name) {
    Types.NestedField exact = struct.field(name);
    if (exact != null) {
      return exact;
    }
    for (Types.NestedField field : struct.fields()) {
      if (field.name().equalsIgnoreCase(name)) {
        return field;
      }
    }
    return null;
  }

  private static Types.StructType toFloe(StructType struct, String prefix, int[] nextId) {
    StructField[] fields = struct.fields();
    int[] ids = new int[fields.length];
    for (int i = 0; i < fields.length; i++) {
      ids[i] = nextId[0]++;
    }
    List<Types.NestedField> result = new ArrayList<>(fields.length);
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      Type type = toFloe(field.dataType(), prefix + field.name(), nextId);
      result.add(Types.NestedField.of(ids[i], field.nullable(), field.name(), type, comment(field.metadata())));
    }
    return Types.StructType.of(result);
  }

  private static Type toFloe(DataType type, String column, int[] nextId) {
    if (type instanceof BooleanType) {
      return Types.BooleanType.get();
    } else if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
      return Types.IntegerType.get();
    } else if (type instanceof LongType) {
      return Types.LongType.get();
    } else if (type instanceof FloatType) {
      return Types.FloatType.get();
    } else if (type instanceof DoubleType) {
      return Types.DoubleType.get();
    } else if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return Types.DecimalType.of(decimal.precision(), decimal.scale());
    } else if (type instanceof DateType) {
      return Types.DateType.get();
    } else if (type instanceof TimestampType) {
      return Types.TimestampType.withZone();
    } else if (type instanceof TimestampNTZType) {
      return Types.TimestampType.withoutZone();
    } else if (type instanceof StringType && ((StringType) type).isUTF8BinaryCollation()) {
      return Types.StringType.get(); // char(n) and varchar(n) are StringType subclasses
    } else if (type instanceof BinaryType) {
      return Types.BinaryType.get();
    } else if (type instanceof StructType) {
      return toFloe((StructType) type, column + ".", nextId);
    } else if (type instanceof ArrayType) {
      ArrayType array = (ArrayType) type;
      int elementId = nextId[0]++;
      Type element = toFloe(array.elementType(), column + ".element", nextId);
      return array.containsNull()
          ? Types.ListType.ofOptional(elementId, element) : Types.ListType.ofRequired(elementId, element);
    } else if (type instanceof MapType) {
      MapType map = (MapType) type;
      int keyId = nextId[0]++;
      int valueId = nextId[0]++;
      Type key = toFloe(map.keyType(), column + ".key", nextId);
      Type value = toFloe(map.valueType(), column + ".value", nextId);
      return map.valueContainsNull()
          ? Types.MapType.ofOptional(keyId, valueId, key, value) : Types.MapType.ofRequired(keyId, valueId, key, value);
    }
    throw SchemaErrors.unsupportedType(column, type.catalogString(), "unsupported type " + type.catalogString()
        + " for column " + column
        + " (Floe stores boolean, tinyint, smallint, int, bigint, float, double, decimal, date, timestamp,"
        + " timestamp_ntz, string, binary, and struct, array and map of these)");
  }

  /**
   * Refuses CHAR(n) and VARCHAR(n) columns (CREATE, REPLACE, CTAS, ALTER TABLE ... ADD COLUMN),
   * rather than storing them as {@code string} without their length: Iceberg strings carry no
   * length, so it could be neither kept nor enforced on write. With
   * {@code spark.sql.legacy.charVarcharAsString=true} Spark treats them as STRING, and so does Floe.
   */
  public static void refuseCharVarchar(StructType schema) {
    if (Boolean.parseBoolean(SQLConf.get().getConfString(CHAR_VARCHAR_AS_STRING, "false"))) {
      return;
    }
    refuseCharVarchar(schema, "");
  }

  private static void refuseCharVarchar(DataType type, String column) {
    if (type instanceof StructType struct) {
      for (StructField field : struct.fields()) {
        String name = column.isEmpty() ? field.name() : column + "." + field.name();
        if (field.metadata().contains(CHAR_VARCHAR_KEY)) {
          throw charVarchar(field.metadata().getString(CHAR_VARCHAR_KEY), name);
        }
        refuseCharVarchar(field.dataType(), name);
      }
    } else if (type instanceof ArrayType array) {
      refuseCharVarchar(array.elementType(), column + ".element");
    } else if (type instanceof MapType map) {
      refuseCharVarchar(map.keyType(), column + ".key");
      refuseCharVarchar(map.valueType(), column + ".value");
    } else if (type instanceof CharType || type instanceof VarcharType) {
      throw charVarchar(type.catalogString(), column);
    }
  }

  private static FloeException charVarchar(String type, String column) {
    return SchemaErrors.unsupportedType(column, type, "unsupported type " + type + " for column " + column
        + ": Iceberg strings have no length, so Floe could not enforce it. Declare the column STRING (in a "
        + "query, CAST it AS STRING), or set " + CHAR_VARCHAR_AS_STRING + "=true to have Spark treat CHAR and "
        + "VARCHAR as STRING");
  }

  private static String comment(Metadata metadata) {
    return metadata.contains(COMMENT_KEY) ? metadata.getString(COMMENT_KEY) : null;
  }
}
