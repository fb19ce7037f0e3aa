package io.floe.spark;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.Transform;
import io.floe.format.partition.Transforms;
import io.floe.format.types.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;

/** Converts Spark's partition transforms ({@code bucket(16, id)}, {@code days(ts)}) to and from partition specs. */
public final class SparkPartitioning {
  private SparkPartitioning() {}

  public static PartitionSpec toSpec(Schema schema, org.apache.spark.sql.connector.expressions.Transform[] transforms) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (org.apache.spark.sql.connector.expressions.Transform t : transforms) {
      String name = t.name().toLowerCase(Locale.ROOT);
      NamedReference[] refs = t.references();
      if (refs.length != 1) {
        throw new IllegalArgumentException("Unsupported partition transform: " + t.describe()
            + " (a transform must reference exactly one column)");
      }
      String column = String.join(".", refs[0].fieldNames());
      if (schema.findField(column) == null) {
        throw new IllegalArgumentException("Cannot partition by " + t.describe() + ": column " + column
            + " does not exist in the table schema");
      }
      Transform transform;
      switch (name) {
        case "identity":
          transform = Transforms.identity();
          break;
        case "bucket":
          transform = Transforms.bucket(intArgument(t));
          break;
        case "truncate":
          transform = Transforms.truncate(intArgument(t));
          break;
        case "years":
        case "year":
        case "months":
        case "month":
        case "days":
        case "day":
        case "hours":
        case "hour":
        case "date_hour":
          String spec = name.equals("date_hour") ? "hour" : name.endsWith("s") ? name.substring(0, name.length() - 1) : name;
          transform = Transforms.fromString(spec);
          break;
        default:
          throw new IllegalArgumentException("Unsupported partition transform: " + t.describe()
              + " (supported: identity, bucket, truncate, years, months, days, hours)");
      }
      io.floe.format.types.Type sourceType = schema.findField(column).type();
      if (!transform.canTransform(sourceType)) {
        String typeName = SparkSchemas.convert(sourceType).catalogString();
        throw new IllegalArgumentException("Cannot partition by " + t.describe() + ": "
            + (sourceType.isPrimitiveType()
                ? "transform " + name + " does not accept column " + column + " of type " + typeName
                : "column " + column + " has type " + typeName + "; partition by a column of a primitive type"));
      }
      builder.add(column, transform, null);
    }
    return builder.build();
  }

  private static int intArgument(org.apache.spark.sql.connector.expressions.Transform t) {
    for (Expression arg : t.arguments()) {
      if (arg instanceof Literal) {
        Object v = ((Literal<?>) arg).value();
        if (v instanceof Number) {
          return ((Number) v).intValue();
        }
      }
    }
    throw new IllegalArgumentException("Invalid partition transform " + t.describe() + ": missing integer argument");
  }

  public static org.apache.spark.sql.connector.expressions.Transform[] toSpark(PartitionSpec spec) {
    List<org.apache.spark.sql.connector.expressions.Transform> out = new ArrayList<>();
    for (PartitionField f : spec.fields()) {
      String name = spec.schema().findColumnName(f.sourceId());
      if (name == null) {
        continue;
      }
      String column = quoted(name);
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

  /** Spark re-parses these names: quote each part so spaces, backquotes and keywords survive. */
  private static String quoted(String dottedName) {
    StringBuilder sb = new StringBuilder();
    for (String part : dottedName.split("\\.")) {
      if (sb.length() > 0) {
        sb.append('.');
      }
      sb.append('`').append(part.replace("`", "``")).append('`');
    }
    return sb.toString();
  }

  private static int widthOf(String transform) {
    return Integer.parseInt(transform.substring(transform.indexOf('[') + 1, transform.indexOf(']')));
  }
}
