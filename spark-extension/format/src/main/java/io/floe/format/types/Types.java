package io.floe.format.types;

import io.floe.format.types.Type.TypeID;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The spec's types. Type strings follow the spec's JSON form (Appendix C). */
public final class Types {
  private Types() {}

  private static final Pattern DECIMAL = Pattern.compile("decimal\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)");
  private static final Pattern FIXED = Pattern.compile("fixed\\[\\s*(\\d+)\\s*\\]");

  /**
   * The types whose string is their name. Built here from the holders below, which never touch a
   * static of this class: a holder that registered itself in a map of this class (as they once
   * did) formed a class-initialization cycle, and two threads converting their first schemas at
   * once (two JDBC sessions, two tasks of a fresh executor) could deadlock in it forever.
   */
  private static final Map<String, PrimitiveType> BY_NAME = byName();

  private static Map<String, PrimitiveType> byName() {
    Map<String, PrimitiveType> byName = new HashMap<>();
    for (PrimitiveType type : List.of(BooleanType.get(), IntegerType.get(), LongType.get(),
        FloatType.get(), DoubleType.get(), DateType.get(), TimeType.get(), StringType.get(),
        UUIDType.get(), BinaryType.get(), TimestampType.withZone(), TimestampType.withoutZone())) {
      byName.put(type.toString(), type);
    }
    return Map.copyOf(byName);
  }

  /** Parses a primitive type string such as {@code long}, {@code decimal(9, 2)} or {@code fixed[16]}. */
  public static PrimitiveType fromPrimitiveString(String typeString) {
    String lower = typeString.trim().toLowerCase(Locale.ROOT);
    PrimitiveType simple = BY_NAME.get(lower);
    if (simple != null) {
      return simple;
    }
    Matcher decimal = DECIMAL.matcher(lower);
    if (decimal.matches()) {
      return DecimalType.of(Integer.parseInt(decimal.group(1)), Integer.parseInt(decimal.group(2)));
    }
    Matcher fixed = FIXED.matcher(lower);
    if (fixed.matches()) {
      return FixedType.ofLength(Integer.parseInt(fixed.group(1)));
    }
    throw new IllegalArgumentException("Cannot parse type string to primitive: " + typeString);
  }

  /** A primitive type; equal primitive types have equal string forms. */
  public abstract static class PrimitiveType implements Type {
    @Override
    public boolean isPrimitiveType() {
      return true;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof PrimitiveType && toString().equals(other.toString());
    }

    @Override
    public int hashCode() {
      return toString().hashCode();
    }
  }

  private static final class Simple extends PrimitiveType {
    private final TypeID id;
    private final String name;

    private Simple(TypeID id, String name) {
      this.id = id;
      this.name = name;
    }

    @Override
    public TypeID typeId() {
      return id;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  public static final class BooleanType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.BOOLEAN, "boolean");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class IntegerType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.INTEGER, "int");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class LongType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.LONG, "long");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class FloatType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.FLOAT, "float");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class DoubleType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.DOUBLE, "double");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class DateType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.DATE, "date");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class TimeType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.TIME, "time");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class StringType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.STRING, "string");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class UUIDType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.UUID, "uuid");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  public static final class BinaryType {
    private static final PrimitiveType INSTANCE = new Simple(TypeID.BINARY, "binary");
    public static PrimitiveType get() {
      return INSTANCE;
    }
  }

  /** Microsecond timestamps: {@code timestamptz} (adjusted to UTC) or {@code timestamp} (local). */
  public static final class TimestampType extends PrimitiveType {
    private static final TimestampType WITH_ZONE = new TimestampType(true);
    private static final TimestampType WITHOUT_ZONE = new TimestampType(false);

    private final boolean adjustToUtc;

    private TimestampType(boolean adjustToUtc) {
      this.adjustToUtc = adjustToUtc;
    }

    public static TimestampType withZone() {
      return WITH_ZONE;
    }

    public static TimestampType withoutZone() {
      return WITHOUT_ZONE;
    }

    public boolean shouldAdjustToUTC() {
      return adjustToUtc;
    }

    @Override
    public TypeID typeId() {
      return TypeID.TIMESTAMP;
    }

    @Override
    public String toString() {
      return adjustToUtc ? "timestamptz" : "timestamp";
    }
  }

  public static final class FixedType extends PrimitiveType {
    private final int length;

    private FixedType(int length) {
      if (length <= 0) {
        throw new IllegalArgumentException("Invalid fixed length: " + length);
      }
      this.length = length;
    }

    public static FixedType ofLength(int length) {
      return new FixedType(length);
    }

    public int length() {
      return length;
    }

    @Override
    public TypeID typeId() {
      return TypeID.FIXED;
    }

    @Override
    public String toString() {
      return "fixed[" + length + "]";
    }
  }

  public static final class DecimalType extends PrimitiveType {
    private final int precision;
    private final int scale;

    private DecimalType(int precision, int scale) {
      if (precision < 1 || precision > 38) {
        throw new IllegalArgumentException("Invalid decimal precision: " + precision + " (must be 1 to 38)");
      }
      if (scale < 0 || scale > precision) {
        throw new IllegalArgumentException("Invalid decimal scale: " + scale + " for precision " + precision);
      }
      this.precision = precision;
      this.scale = scale;
    }

    public static DecimalType of(int precision, int scale) {
      return new DecimalType(precision, scale);
    }

    public int precision() {
      return precision;
    }

    public int scale() {
      return scale;
    }

    @Override
    public TypeID typeId() {
      return TypeID.DECIMAL;
    }

    @Override
    public String toString() {
      return "decimal(" + precision + ", " + scale + ")";
    }
  }

  /** A field of a struct, with the spec's id, name, required flag, type and optional doc. */
  public static final class NestedField {
    private final int id;
    private final String name;
    private final boolean optional;
    private final Type type;
    private final String doc;

    private NestedField(boolean optional, int id, String name, Type type, String doc) {
      this.id = id;
      this.name = Objects.requireNonNull(name, "Field name is null");
      this.optional = optional;
      this.type = Objects.requireNonNull(type, "Field type is null");
      this.doc = doc;
    }

    public static NestedField optional(int id, String name, Type type) {
      return new NestedField(true, id, name, type, null);
    }

    public static NestedField optional(int id, String name, Type type, String doc) {
      return new NestedField(true, id, name, type, doc);
    }

    public static NestedField required(int id, String name, Type type) {
      return new NestedField(false, id, name, type, null);
    }

    public static NestedField required(int id, String name, Type type, String doc) {
      return new NestedField(false, id, name, type, doc);
    }

    public static NestedField of(int id, boolean isOptional, String name, Type type, String doc) {
      return new NestedField(isOptional, id, name, type, doc);
    }

    public int fieldId() {
      return id;
    }

    public String name() {
      return name;
    }

    public boolean isOptional() {
      return optional;
    }

    public boolean isRequired() {
      return !optional;
    }

    public Type type() {
      return type;
    }

    public String doc() {
      return doc;
    }

    public NestedField withName(String newName) {
      return new NestedField(optional, id, newName, type, doc);
    }

    public NestedField withType(Type newType) {
      return new NestedField(optional, id, name, newType, doc);
    }

    public NestedField asOptional() {
      return new NestedField(true, id, name, type, doc);
    }

    public NestedField withDoc(String newDoc) {
      return new NestedField(optional, id, name, type, newDoc);
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof NestedField)) {
        return false;
      }
      NestedField that = (NestedField) o;
      return id == that.id && optional == that.optional && name.equals(that.name)
          && type.equals(that.type) && Objects.equals(doc, that.doc);
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, name, optional, type, doc);
    }

    @Override
    public String toString() {
      return id + ": " + name + ": " + (optional ? "optional " : "required ") + type
          + (doc != null ? " (" + doc + ")" : "");
    }
  }

  public static final class StructType implements Type {
    private final List<NestedField> fields;

    private StructType(List<NestedField> fields) {
      this.fields = Collections.unmodifiableList(new ArrayList<>(fields));
    }

    public static StructType of(List<NestedField> fields) {
      return new StructType(fields);
    }

    public static StructType of(NestedField... fields) {
      return new StructType(List.of(fields));
    }

    public List<NestedField> fields() {
      return fields;
    }

    public NestedField field(String name) {
      for (NestedField f : fields) {
        if (f.name().equals(name)) {
          return f;
        }
      }
      return null;
    }

    public NestedField field(int id) {
      for (NestedField f : fields) {
        if (f.fieldId() == id) {
          return f;
        }
      }
      return null;
    }

    @Override
    public TypeID typeId() {
      return TypeID.STRUCT;
    }

    @Override
    public StructType asStructType() {
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof StructType && fields.equals(((StructType) o).fields);
    }

    @Override
    public int hashCode() {
      return fields.hashCode();
    }

    @Override
    public String toString() {
      return "struct<" + fields + ">";
    }
  }

  public static final class ListType implements Type {
    private final NestedField element;

    private ListType(NestedField element) {
      this.element = element;
    }

    public static ListType ofOptional(int elementId, Type elementType) {
      return new ListType(NestedField.optional(elementId, "element", elementType));
    }

    public static ListType ofRequired(int elementId, Type elementType) {
      return new ListType(NestedField.required(elementId, "element", elementType));
    }

    public NestedField elementField() {
      return element;
    }

    public Type elementType() {
      return element.type();
    }

    public int elementId() {
      return element.fieldId();
    }

    public boolean isElementOptional() {
      return element.isOptional();
    }

    @Override
    public TypeID typeId() {
      return TypeID.LIST;
    }

    @Override
    public ListType asListType() {
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ListType && element.equals(((ListType) o).element);
    }

    @Override
    public int hashCode() {
      return element.hashCode();
    }

    @Override
    public String toString() {
      return "list<" + element.type() + ">";
    }
  }

  public static final class MapType implements Type {
    private final NestedField key;
    private final NestedField value;

    private MapType(NestedField key, NestedField value) {
      this.key = key;
      this.value = value;
    }

    public static MapType ofOptional(int keyId, int valueId, Type keyType, Type valueType) {
      return new MapType(NestedField.required(keyId, "key", keyType), NestedField.optional(valueId, "value", valueType));
    }

    public static MapType ofRequired(int keyId, int valueId, Type keyType, Type valueType) {
      return new MapType(NestedField.required(keyId, "key", keyType), NestedField.required(valueId, "value", valueType));
    }

    public NestedField keyField() {
      return key;
    }

    public NestedField valueField() {
      return value;
    }

    public Type keyType() {
      return key.type();
    }

    public Type valueType() {
      return value.type();
    }

    public int keyId() {
      return key.fieldId();
    }

    public int valueId() {
      return value.fieldId();
    }

    public boolean isValueOptional() {
      return value.isOptional();
    }

    @Override
    public TypeID typeId() {
      return TypeID.MAP;
    }

    @Override
    public MapType asMapType() {
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof MapType && key.equals(((MapType) o).key) && value.equals(((MapType) o).value);
    }

    @Override
    public int hashCode() {
      return Objects.hash(key, value);
    }

    @Override
    public String toString() {
      return "map<" + key.type() + ", " + value.type() + ">";
    }
  }
}
