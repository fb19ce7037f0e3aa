package io.floe.format.commit;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.SchemaErrors;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.Transform;
import io.floe.format.partition.Transforms;
import io.floe.format.sql.TransformTerm;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Partition spec evolution with Iceberg's rules, as a pure function of the base metadata: fields are
 * added at the end; a dropped field leaves the spec in v2 and becomes a {@code void} field (same
 * position, same field id) in v1, so v1 field ids stay stable. Field ids of the result are assigned
 * by {@code TableMetadataBuilder.addPartitionSpec} (a field seen in an earlier spec keeps its id).
 * Every problem is an {@link IllegalArgumentException} naming the table, the field and the transform.
 */
public final class PartitionSpecUpdate {
  private static final Set<String> TIME_TRANSFORMS = Set.of("year", "month", "day", "hour");

  private final TableMetadata base;
  private final String table;
  private final Schema schema;
  private final List<Field> fields = new ArrayList<>();
  private final List<Field> added = new ArrayList<>();

  /** A mutable copy of one partition field while the update is built. */
  private static final class Field {
    final int sourceId;
    final int fieldId;
    final Transform transform;
    String name;
    boolean removed;

    Field(int sourceId, int fieldId, String name, Transform transform) {
      this.sourceId = sourceId;
      this.fieldId = fieldId;
      this.name = name;
      this.transform = transform;
    }

    boolean active() {
      return !removed && !transform.isVoid();
    }
  }

  public PartitionSpecUpdate(TableMetadata base, String table) {
    this.base = base;
    this.table = table;
    this.schema = base.schema();
    for (PartitionField f : base.spec().fields()) {
      fields.add(new Field(f.sourceId(), f.fieldId(), f.name(), f.transform()));
    }
  }

  private boolean isV1() {
    return base.formatVersion() == 1;
  }

  /** Adds a field for {@code term}, named {@code name} or, when null, by Iceberg's naming rules. */
  public PartitionSpecUpdate add(TransformTerm term, String name) {
    String what = "Cannot add partition field " + term + " to table " + table;
    Types.NestedField source = resolveColumn(term, what);
    Transform transform = transformFor(term, what);
    if (!transform.canTransform(source.type())) {
      throw SchemaErrors.invalidPartitioning(null, what + ": transform " + transform + " cannot be applied to column "
          + source.name() + " of type " + source.type());
    }
    List<Field> current = new ArrayList<>(fields);
    current.addAll(added);
    for (Field f : current) {
      if (!f.active() || f.sourceId != source.fieldId()) {
        continue;
      }
      if (f.transform.toString().equals(transform.toString())) {
        throw SchemaErrors.invalidPartitioning(null, what + ": the table is already partitioned by it, as field "
            + describe(f));
      }
      if (TIME_TRANSFORMS.contains(f.transform.toString()) && TIME_TRANSFORMS.contains(transform.toString())) {
        throw SchemaErrors.invalidPartitioning(null, what + ": it is redundant with field " + describe(f)
            + "; replace that field instead: ALTER TABLE " + table + " REPLACE PARTITION FIELD " + f.name
            + " WITH " + term);
      }
    }
    String fieldName = name != null ? name : chooseName(source, transform);
    checkName(fieldName, source, transform, what);
    added.add(new Field(source.fieldId(), -1, fieldName, transform));
    return this;
  }

  /** Drops the field that {@code term} denotes: a transform, an identity column, or a field name. */
  public PartitionSpecUpdate remove(TransformTerm term) {
    String what = "Cannot drop partition field " + term + " from table " + table;
    find(term, what).removed = true;
    return this;
  }

  private Field find(TransformTerm term, String what) {
    if (term.isColumnReference()) {
      Types.NestedField column = findColumn(term);
      for (Field f : fields) {
        if (column != null && f.active() && f.sourceId == column.fieldId() && f.transform.isIdentity()) {
          return f;
        }
      }
      List<Field> folded = new ArrayList<>();
      for (Field f : fields) {
        if (f.active() && term.columnParts().size() == 1 && f.name.equals(term.columnName())) {
          return f;
        } else if (f.active() && term.columnParts().size() == 1 && f.name.equalsIgnoreCase(term.columnName())) {
          folded.add(f);
        }
      }
      if (folded.size() == 1) {
        return folded.get(0);
      }
      throw SchemaErrors.invalidPartitioning(null,
          what + ": the table has no partition field with this name or identity "
          + "column; its partition fields are " + describe(base.spec(), schema));
    }
    Types.NestedField source = resolveColumn(term, what);
    Transform transform = transformFor(term, what);
    for (Field f : fields) {
      if (f.active() && f.sourceId == source.fieldId() && f.transform.toString().equals(transform.toString())) {
        return f;
      }
    }
    throw SchemaErrors.invalidPartitioning(null,
        what + ": the table is not partitioned by it; its partition fields are "
        + describe(base.spec(), schema));
  }

  /** The new spec; its field ids are placeholders until the metadata builder assigns the table's. */
  public PartitionSpec apply() {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (Field f : fields) {
      if (!f.removed) {
        builder.add(f.sourceId, f.fieldId, f.name, f.transform);
      } else if (isV1()) {
        builder.add(f.sourceId, f.fieldId, f.name, Transforms.alwaysNull());
      }
    }
    int nextId = Math.max(base.lastAssignedPartitionId(), PartitionSpec.PARTITION_DATA_ID_START - 1);
    for (Field f : added) {
      builder.add(f.sourceId, ++nextId, f.name, f.transform);
    }
    return builder.build();
  }

  private String chooseName(Types.NestedField source, Transform transform) {
    if (!isV1()) {
      // v2: a field that partitioned the table by the same transform before comes back with its name
      for (PartitionSpec spec : base.specs()) {
        for (PartitionField f : spec.fields()) {
          if (f.sourceId() == source.fieldId() && f.transform().toString().equals(transform.toString())
              && !nameTaken(f.name())) {
            return f.name();
          }
        }
      }
    }
    return defaultName(source.name(), transform);
  }

  /** Iceberg's names for evolved fields: {@code id}, {@code id_bucket_16}, {@code s_trunc_4}, {@code ts_day}. */
  public static String defaultName(String column, Transform transform) {
    String t = transform.toString();
    if (transform.isIdentity()) {
      return column;
    } else if (transform.isVoid()) {
      return column + "_null";
    } else if (t.startsWith("bucket[")) {
      return column + "_bucket_" + t.substring("bucket[".length(), t.length() - 1);
    } else if (t.startsWith("truncate[")) {
      return column + "_trunc_" + t.substring("truncate[".length(), t.length() - 1);
    }
    return column + "_" + t;
  }

  private boolean nameTaken(String name) {
    return fields.stream().anyMatch(f -> !f.removed && f.name.equals(name))
        || added.stream().anyMatch(f -> f.name.equals(name));
  }

  private void checkName(String name, Types.NestedField source, Transform transform, String what) {
    if (name.isEmpty()) {
      throw SchemaErrors.invalidPartitioning(null, what + ": a partition field name cannot be empty");
    }
    Types.NestedField column = schema.findField(name);
    if (column != null && !(transform.isIdentity() && column.fieldId() == source.fieldId())) {
      throw SchemaErrors.invalidPartitioning(null,
          what + ": name " + name + " is a column of the table; only an identity "
          + "field of that column may use it. Choose another name with AS <name>");
    }
    for (Field f : added) {
      if (f.name.equals(name)) {
        throw SchemaErrors.invalidPartitioning(null, what + ": duplicate partition field name " + name);
      }
    }
    for (Field f : fields) {
      if (!f.name.equals(name)) {
        continue;
      }
      if (f.removed || f.transform.isVoid()) {
        // a dropped field keeps its id (a void field in v1); it gives up its name, as in Iceberg
        f.name = name + "_" + f.fieldId;
      } else {
        throw SchemaErrors.invalidPartitioning(null, what + ": duplicate partition field name " + name
            + ", already used by field " + describe(f) + ". Choose another name with AS <name>");
      }
    }
  }

  private Types.NestedField findColumn(TransformTerm term) {
    List<String> parts = term.columnParts();
    if (parts.size() > 1) {
      return schema.findField(term.columnName());
    }
    String name = parts.get(0);
    Types.NestedField exact = null;
    List<Types.NestedField> folded = new ArrayList<>();
    for (Types.NestedField c : schema.columns()) {
      if (c.name().equals(name)) {
        exact = c;
      } else if (c.name().equalsIgnoreCase(name)) {
        folded.add(c);
      }
    }
    return exact != null ? exact : folded.size() == 1 ? folded.get(0) : null;
  }

  private Types.NestedField resolveColumn(TransformTerm term, String what) {
    Types.NestedField column = findColumn(term);
    if (column == null) {
      throw SchemaErrors.columnNotFound(term.columnName(),
          what + ": column " + term.columnName() + " does not exist; the table's "
          + "columns are " + schema.columns().stream().map(Types.NestedField::name).collect(Collectors.joining(", ")));
    }
    if (term.columnParts().size() > 1) {
      throw SchemaErrors.invalidPartitioning(null,
          what + ": column " + term.columnName() + " is nested; Floe partitions "
          + "by top-level columns only");
    }
    return column;
  }

  private static Transform transformFor(TransformTerm term, String what) {
    try {
      return term.toTransform();
    } catch (IllegalArgumentException e) {
      throw FloeException.prefixed(what + ": ", e, ErrorClass.FLOE_PARTITIONING_INVALID);
    }
  }

  private String describe(Field f) {
    return f.name + " (" + f.transform + "(" + columnName(schema, f.sourceId) + "))";
  }

  private static String columnName(Schema schema, int sourceId) {
    String name = schema.findColumnName(sourceId);
    return name != null ? name : "<dropped column " + sourceId + ">";
  }

  /** A spec as one line: {@code [1000: category: identity(category), 1001: id_bucket_8: bucket[8](id)]}. */
  public static String describe(PartitionSpec spec, Schema schema) {
    return spec.fields().stream()
        .map(f -> f.fieldId() + ": " + f.name() + ": " + f.transform() + "(" + columnName(schema, f.sourceId()) + ")")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
