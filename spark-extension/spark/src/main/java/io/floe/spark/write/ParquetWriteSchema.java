package io.floe.spark.write;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;

/**
 * The Parquet schema a Floe data file is written with, derived by walking the message type
 * Spark's writer produces for the row type in parallel with the Floe schema.
 *
 * <p>The walk keeps Spark's group structure (so Spark's value writers still fit), and takes
 * repetition, field ids and primitive annotations from Floe: every node that is a Floe field
 * carries its id (struct children, the list {@code element}, the map {@code key} and
 * {@code value}); the repeated {@code list} and {@code key_value} groups carry none. A primitive
 * must have the physical type Spark writes, except four widenings the writer handles:
 * byte/short annotations are dropped for {@code int}, plain int64 becomes {@code time}, plain
 * binary becomes {@code fixed[L]}, and a string becomes a 16-byte {@code uuid}
 * (see {@link FieldTrackingConsumer}).
 *
 * <p>It also returns a tree of {@link Node}s mirroring the message, used to follow the writer's
 * position field by field, and the leaf columns by path.
 */
final class ParquetWriteSchema {
  private static final String MESSAGE_NAME = "table";

  private final MessageType messageType;
  private final Node root;
  private final Map<ColumnPath, Leaf> leaves;

  private ParquetWriteSchema(MessageType messageType, Node root, Map<ColumnPath, Leaf> leaves) {
    this.messageType = messageType;
    this.root = root;
    this.leaves = leaves;
  }

  /** A position in the message: a group with children, or a leaf column. */
  static final class Node {
    final String name;
    final boolean required;
    final Node[] children;
    final Leaf leaf;
    /** How many children are required: each must be written in every instance of the group. */
    final int requiredChildren;

    private Node(String name, boolean required, Node[] children, Leaf leaf) {
      this.name = name;
      this.required = required;
      this.children = children;
      this.leaf = leaf;
      int count = 0;
      for (Node child : children == null ? new Node[0] : children) {
        count += child.required ? 1 : 0;
      }
      this.requiredChildren = count;
    }

    /** Names the required children, for the error raised when one of them was not written. */
    String requiredChildNames() {
      List<String> names = new ArrayList<>();
      for (Node child : children) {
        if (child.required) {
          names.add(child.name);
        }
      }
      return names.size() == 1 ? names.get(0) : "one of " + names;
    }
  }

  /**
   * A primitive column of the Floe schema. For float and double columns the writer keeps the NaN
   * count and the smallest and largest non-NaN values (in {@link Double#compare} order, so -0.0
   * sorts before 0.0), since Parquet statistics let NaN into min/max.
   */
  static final class Leaf {
    final int fieldId;
    final String name;
    final Types.PrimitiveType type;
    final PrimitiveType parquetType;
    /** False inside a list or map: such columns get counts but never bounds. */
    final boolean boundsAllowed;
    final boolean convertsUuid;
    long nanCount;
    boolean hasNonNaN;
    double min;
    double max;

    void addFloating(double value) {
      if (Double.isNaN(value)) {
        nanCount += 1;
      } else if (!hasNonNaN) {
        hasNonNaN = true;
        min = value;
        max = value;
      } else if (Double.compare(value, min) < 0) {
        min = value;
      } else if (Double.compare(value, max) > 0) {
        max = value;
      }
    }

    private Leaf(int fieldId, String name, Types.PrimitiveType type, PrimitiveType parquetType,
        boolean boundsAllowed) {
      this.fieldId = fieldId;
      this.name = name;
      this.type = type;
      this.parquetType = parquetType;
      this.boundsAllowed = boundsAllowed;
      this.convertsUuid = type.typeId() == Type.TypeID.UUID;
    }
  }

  static ParquetWriteSchema build(MessageType sparkMessage, Types.StructType struct) {
    Walk walk = new Walk();
    List<org.apache.parquet.schema.Type> fields = new ArrayList<>();
    Node[] children = walk.children(sparkMessage, struct.fields(), "", new ArrayList<>(), true, fields);
    MessageType message = new MessageType(MESSAGE_NAME, fields);
    return new ParquetWriteSchema(message, new Node("", true, children, null), walk.leaves);
  }

  MessageType messageType() {
    return messageType;
  }

  Node root() {
    return root;
  }

  /** The deepest field nesting: the writer's position stack needs this many entries plus the root. */
  int depth() {
    return maxDepth(messageType);
  }

  Leaf leaf(ColumnPath path) {
    return leaves.get(path);
  }

  Collection<Leaf> leaves() {
    return leaves.values();
  }

  private static int maxDepth(org.apache.parquet.schema.Type type) {
    if (type.isPrimitive()) {
      return 0;
    }
    int max = 0;
    for (org.apache.parquet.schema.Type child : type.asGroupType().getFields()) {
      max = Math.max(max, maxDepth(child));
    }
    return max + 1;
  }

  private static final class Walk {
    private final Map<ColumnPath, Leaf> leaves = new LinkedHashMap<>();

    Node[] children(GroupType sparkGroup, List<Types.NestedField> fields, String prefix, List<String> path,
        boolean boundsAllowed, List<org.apache.parquet.schema.Type> out) {
      if (sparkGroup.getFieldCount() != fields.size()) {
        throw new IllegalArgumentException("Cannot write " + (prefix.isEmpty() ? "rows" : "struct " + prefix)
            + ": Spark has " + sparkGroup.getFieldCount() + " fields, the table has " + fields.size());
      }
      Node[] nodes = new Node[fields.size()];
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField field = fields.get(i);
        org.apache.parquet.schema.Type[] built = new org.apache.parquet.schema.Type[1];
        nodes[i] = field(sparkGroup.getType(i), field, field.name(), prefix + field.name(), path, boundsAllowed, built);
        out.add(built[0]);
      }
      return nodes;
    }

    private Node field(org.apache.parquet.schema.Type spark, Types.NestedField field, String parquetName,
        String name, List<String> parentPath, boolean boundsAllowed, org.apache.parquet.schema.Type[] out) {
      Repetition repetition = field.isOptional() ? Repetition.OPTIONAL : Repetition.REQUIRED;
      List<String> path = new ArrayList<>(parentPath);
      path.add(parquetName);
      Type type = field.type();
      switch (type.typeId()) {
        case STRUCT: {
          GroupType group = group(spark, null, name, type);
          List<org.apache.parquet.schema.Type> fields = new ArrayList<>();
          Node[] children = children(group, type.asStructType().fields(), name + ".", path, boundsAllowed, fields);
          out[0] = org.apache.parquet.schema.Types.buildGroup(repetition).addFields(fields.toArray(new org.apache.parquet.schema.Type[0]))
              .id(field.fieldId()).named(parquetName);
          return new Node(name, field.isRequired(), children, null);
        }
        case LIST: {
          GroupType repeated = repeatedGroup(group(spark, LogicalTypeAnnotation.listType(), name, type), 1, name, type);
          List<String> repeatedPath = new ArrayList<>(path);
          repeatedPath.add(repeated.getName());
          org.apache.parquet.schema.Type[] element = new org.apache.parquet.schema.Type[1];
          Node elementNode = field(repeated.getType(0), type.asListType().elementField(), repeated.getType(0).getName(),
              name + ".element", repeatedPath, false, element);
          out[0] = org.apache.parquet.schema.Types.buildGroup(repetition).as(LogicalTypeAnnotation.listType())
              .addField(org.apache.parquet.schema.Types.repeatedGroup().addField(element[0]).named(repeated.getName()))
              .id(field.fieldId()).named(parquetName);
          Node repeatedNode = new Node(name + "." + repeated.getName(), false, new Node[] {elementNode}, null);
          return new Node(name, field.isRequired(), new Node[] {repeatedNode}, null);
        }
        case MAP: {
          GroupType repeated = repeatedGroup(group(spark, LogicalTypeAnnotation.mapType(), name, type), 2, name, type);
          List<String> repeatedPath = new ArrayList<>(path);
          repeatedPath.add(repeated.getName());
          Types.MapType map = type.asMapType();
          org.apache.parquet.schema.Type[] key = new org.apache.parquet.schema.Type[1];
          org.apache.parquet.schema.Type[] value = new org.apache.parquet.schema.Type[1];
          Node keyNode = field(repeated.getType(0), map.keyField(), repeated.getType(0).getName(), name + ".key",
              repeatedPath, false, key);
          Node valueNode = field(repeated.getType(1), map.valueField(), repeated.getType(1).getName(), name + ".value",
              repeatedPath, false, value);
          out[0] = org.apache.parquet.schema.Types.buildGroup(repetition).as(LogicalTypeAnnotation.mapType())
              .addField(org.apache.parquet.schema.Types.repeatedGroup().addFields(key[0], value[0]).named(repeated.getName()))
              .id(field.fieldId()).named(parquetName);
          Node repeatedNode = new Node(name + "." + repeated.getName(), false, new Node[] {keyNode, valueNode}, null);
          return new Node(name, field.isRequired(), new Node[] {repeatedNode}, null);
        }
        default: {
          PrimitiveType primitive = primitive((Types.PrimitiveType) type, repetition, parquetName, field.fieldId());
          checkCompatible(spark, primitive, name, type);
          Leaf leaf = new Leaf(field.fieldId(), name, (Types.PrimitiveType) type, primitive, boundsAllowed);
          leaves.put(ColumnPath.get(path.toArray(new String[0])), leaf);
          out[0] = primitive;
          return new Node(name, field.isRequired(), null, leaf);
        }
      }
    }
  }

  private static GroupType group(org.apache.parquet.schema.Type spark, LogicalTypeAnnotation expected, String name,
      Type type) {
    if (spark.isPrimitive() || !Objects.equals(spark.getLogicalTypeAnnotation(), expected)) {
      throw mismatch(name, type, spark);
    }
    return spark.asGroupType();
  }

  private static GroupType repeatedGroup(GroupType outer, int width, String name, Type type) {
    if (outer.getFieldCount() != 1 || outer.getType(0).isPrimitive()
        || !outer.getType(0).isRepetition(Repetition.REPEATED)
        || outer.getType(0).asGroupType().getFieldCount() != width) {
      throw mismatch(name, type, outer);
    }
    return outer.getType(0).asGroupType();
  }

  /** The Parquet type of a Floe primitive (spec: Parquet type mapping). */
  static PrimitiveType primitive(Types.PrimitiveType type, Repetition repetition, String name, int id) {
    switch (type.typeId()) {
      case BOOLEAN:
        return build(PrimitiveTypeName.BOOLEAN, repetition, null, 0, name, id);
      case INTEGER:
        return build(PrimitiveTypeName.INT32, repetition, null, 0, name, id);
      case LONG:
        return build(PrimitiveTypeName.INT64, repetition, null, 0, name, id);
      case FLOAT:
        return build(PrimitiveTypeName.FLOAT, repetition, null, 0, name, id);
      case DOUBLE:
        return build(PrimitiveTypeName.DOUBLE, repetition, null, 0, name, id);
      case DATE:
        return build(PrimitiveTypeName.INT32, repetition, LogicalTypeAnnotation.dateType(), 0, name, id);
      case TIME:
        return build(PrimitiveTypeName.INT64, repetition,
            LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS), 0, name, id);
      case TIMESTAMP:
        boolean adjusted = ((Types.TimestampType) type).shouldAdjustToUTC();
        return build(PrimitiveTypeName.INT64, repetition,
            LogicalTypeAnnotation.timestampType(adjusted, TimeUnit.MICROS), 0, name, id);
      case STRING:
        return build(PrimitiveTypeName.BINARY, repetition, LogicalTypeAnnotation.stringType(), 0, name, id);
      case UUID:
        return build(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition, LogicalTypeAnnotation.uuidType(), 16, name, id);
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return build(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition, null, length, name, id);
      case BINARY:
        return build(PrimitiveTypeName.BINARY, repetition, null, 0, name, id);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        LogicalTypeAnnotation annotation = LogicalTypeAnnotation.decimalType(decimal.scale(), decimal.precision());
        if (decimal.precision() <= 9) {
          return build(PrimitiveTypeName.INT32, repetition, annotation, 0, name, id);
        } else if (decimal.precision() <= 18) {
          return build(PrimitiveTypeName.INT64, repetition, annotation, 0, name, id);
        }
        return build(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition, annotation,
            decimalBytes(decimal.precision()), name, id);
      default:
        throw new IllegalArgumentException("Not a primitive type: " + type);
    }
  }

  /** The fewest bytes whose two's complement range holds every unscaled value of the precision. */
  static int decimalBytes(int precision) {
    int bytes = 1;
    while (Math.pow(2.0, 8 * bytes - 1) < Math.pow(10.0, precision)) {
      bytes++;
    }
    return bytes;
  }

  private static PrimitiveType build(PrimitiveTypeName physical, Repetition repetition,
      LogicalTypeAnnotation annotation, int length, String name, int id) {
    org.apache.parquet.schema.Types.PrimitiveBuilder<PrimitiveType> builder =
        org.apache.parquet.schema.Types.primitive(physical, repetition).as(annotation);
    if (length > 0) {
      builder = builder.length(length);
    }
    return builder.id(id).named(name);
  }

  /** Whether Spark's writer for {@code spark} produces values the Floe column type can store. */
  private static void checkCompatible(org.apache.parquet.schema.Type spark, PrimitiveType floe, String name, Type type) {
    if (!spark.isPrimitive()) {
      throw mismatch(name, type, spark);
    }
    PrimitiveType written = spark.asPrimitiveType();
    PrimitiveTypeName physical = written.getPrimitiveTypeName();
    LogicalTypeAnnotation annotation = written.getLogicalTypeAnnotation();
    boolean same = physical == floe.getPrimitiveTypeName()
        && Objects.equals(annotation, floe.getLogicalTypeAnnotation())
        && written.getTypeLength() == floe.getTypeLength();
    boolean compatible;
    switch (type.typeId()) {
      case INTEGER: // Spark writes byte and short as annotated int32
        compatible = physical == PrimitiveTypeName.INT32
            && (annotation == null || annotation instanceof IntLogicalTypeAnnotation);
        break;
      case TIME: // Spark LongType carrying microseconds
        compatible = same || (physical == PrimitiveTypeName.INT64 && annotation == null);
        break;
      case FIXED:
        compatible = physical == PrimitiveTypeName.BINARY && annotation == null;
        break;
      case UUID:
        compatible = physical == PrimitiveTypeName.BINARY
            && LogicalTypeAnnotation.stringType().equals(annotation);
        break;
      default:
        compatible = same;
    }
    if (!compatible) {
      throw mismatch(name, type, spark);
    }
  }

  private static IllegalArgumentException mismatch(String name, Type type, org.apache.parquet.schema.Type spark) {
    return new IllegalArgumentException("Cannot write column " + name + " of type " + type
        + " from Spark data written as Parquet " + spark.toString().trim() + "; cast the column to the table type");
  }
}
