package io.floe.spark.util;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.SchemaErrors;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.Transform;
import io.floe.format.sql.SqlTokens;
import io.floe.format.sql.TransformTerm;
import io.floe.format.types.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;

/** Converts Spark's partition transforms ({@code bucket(16, id)}, {@code days(ts)}) to and from partition specs. */
public final class SparkPartitioning {
  private SparkPartitioning() {}

  /**
   * The partition spec of Spark's transforms: identity, {@code bucket(N, col)}, {@code truncate(W, col)}
   * and {@code years|months|days|hours(col)} or Iceberg's {@code year|month|day|hour(col)}, stored with
   * the spec's names ({@code bucket[16]}, {@code day}). Errors name the transform and the column.
   */
  public static PartitionSpec toSpec(Schema schema, org.apache.spark.sql.connector.expressions.Transform[] transforms) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    Map<String, String> fieldNames = new HashMap<>();
    for (org.apache.spark.sql.connector.expressions.Transform t : transforms) {
      String name = t.name().toLowerCase(Locale.ROOT);
      NamedReference[] refs = t.references();
      if (refs.length != 1) {
        throw SchemaErrors.invalidPartitioning(t.describe(), "Unsupported partition transform: " + t.describe()
            + " (a transform must reference exactly one column)");
      }
      String column = String.join(".", refs[0].fieldNames());
      checkSourceColumn(schema, column, t);
      Transform transform = transform(name, t, column);
      io.floe.format.types.Type sourceType = schema.findField(column).type();
      if (!transform.canTransform(sourceType)) {
        String typeName = SparkSchemas.convert(sourceType).catalogString();
        throw SchemaErrors.invalidPartitioning(t.describe(), "Cannot partition by " + t.describe() + ": "
            + (sourceType.isPrimitiveType()
                ? "transform " + name + " does not accept column " + column + " of type " + typeName
                : "column " + column + " has type " + typeName + "; partition by a column of a primitive type"));
      }
      String fieldName = defaultFieldName(schema, column, transform);
      String previous = fieldNames.putIfAbsent(fieldName, t.describe());
      if (previous != null) {
        throw SchemaErrors.invalidPartitioning(t.describe(),
            "Cannot partition by " + t.describe() + " on column " + column
            + ": its partition field name " + fieldName + " is already used by " + previous
            + (previous.equals(t.describe()) ? " (the same transform is listed twice)" : ""));
      }
      builder.add(column, transform, null);
    }
    return builder.build();
  }

  /** The name the spec builder gives a field ({@code id_bucket}, {@code ts_day}), asked of the builder itself. */
  private static String defaultFieldName(Schema schema, String column, Transform transform) {
    return PartitionSpec.builderFor(schema).add(column, transform, null).build().fields().get(0).name();
  }

  private static Transform transform(String name, org.apache.spark.sql.connector.expressions.Transform t,
      String column) {
    Transform transform;
    try {
      boolean hasWidth = name.equals("bucket") || name.equals("truncate");
      transform = TransformTerm.transformFor(name, hasWidth ? intArgument(t) : null);
    } catch (IllegalArgumentException | FloeException e) {
      throw FloeException.prefixed("Cannot partition by " + t.describe() + " on column " + column + ": ", e,
          ErrorClass.FLOE_PARTITIONING_INVALID);
    }
    if (transform == null) {
      throw SchemaErrors.invalidPartitioning(t.describe(), "Unsupported partition transform: " + t.describe()
          + " (supported: identity, bucket, truncate, years, months, days, hours)");
    }
    return transform;
  }

  /** The source column must exist and have one value per row: top-level or inside structs, not a list or map. */
  private static void checkSourceColumn(Schema schema, String column,
      org.apache.spark.sql.connector.expressions.Transform t) {
    if (schema.findField(column) == null) {
      throw SchemaErrors.invalidPartitioning(t.describe(), "Cannot partition by " + t.describe() + ": column " + column
          + " does not exist in the table schema");
    }
    for (int dot = column.indexOf('.'); dot >= 0; dot = column.indexOf('.', dot + 1)) {
      String parent = column.substring(0, dot);
      io.floe.format.types.Types.NestedField field = schema.findField(parent);
      io.floe.format.types.Type.TypeID kind = field == null ? null : field.type().typeId();
      if (kind == io.floe.format.types.Type.TypeID.LIST || kind == io.floe.format.types.Type.TypeID.MAP) {
        throw SchemaErrors.invalidPartitioning(t.describe(),
            "Cannot partition by " + t.describe() + ": column " + column
            + " is inside the " + (kind == io.floe.format.types.Type.TypeID.LIST ? "array " : "map ") + parent
            + "; a partition source column must be top-level or inside structs only");
      }
    }
  }

  private static int intArgument(org.apache.spark.sql.connector.expressions.Transform t) {
    for (Expression arg : t.arguments()) {
      if (arg instanceof Literal) {
        Object v = ((Literal<?>) arg).value();
        if (v instanceof Integer || v instanceof Short || v instanceof Byte
            || v instanceof Long && (Long) v == ((Long) v).intValue()) {
          return ((Number) v).intValue();
        }
        throw SchemaErrors.invalidPartitioning(t.describe(), "Invalid partition transform " + t.describe()
            + ": expected an integer argument, got " + arg.describe());
      }
    }
    throw SchemaErrors.invalidPartitioning(t.describe(),
        "Invalid partition transform " + t.describe() + ": missing integer argument");
  }

  public static org.apache.spark.sql.connector.expressions.Transform[] toSpark(PartitionSpec spec) {
    List<org.apache.spark.sql.connector.expressions.Transform> out = new ArrayList<>();
    for (PartitionField f : spec.fields()) {
      List<String> path = spec.schema().findColumnPath(f.sourceId());
      if (path == null) {
        continue;
      }
      String column = SqlTokens.quote(path); // Spark re-parses it: each part quoted, dots in names kept
      String t = f.transform().toString();
      if (f.transform().isIdentity()) {
        out.add(Expressions.identity(column));
      } else if (t.startsWith("bucket[")) {
        out.add(Expressions.bucket(widthOf(t), column));
      } else if (t.startsWith("truncate[")) {
        out.add(Expressions.apply("truncate", Expressions.literal(widthOf(t)), Expressions.column(column)));
      } else if (t.equals("year")) {
        out.add(Expressions.years(column));
      } else if (t.equals("month")) {
        out.add(Expressions.months(column));
      } else if (t.equals("day")) {
        out.add(Expressions.days(column));
      } else if (t.equals("hour")) {
        out.add(Expressions.hours(column));
      }
    }
    return out.toArray(new org.apache.spark.sql.connector.expressions.Transform[0]);
  }

  private static int widthOf(String transform) {
    return Integer.parseInt(transform.substring(transform.indexOf('[') + 1, transform.indexOf(']')));
  }
}
