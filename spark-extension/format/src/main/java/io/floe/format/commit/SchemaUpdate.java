package io.floe.format.commit;

import io.floe.format.SchemaErrors;
import io.floe.format.commit.SchemaTree.Located;
import io.floe.format.commit.SchemaTree.Role;
import io.floe.format.metadata.NameMapping;
import io.floe.format.metadata.SortField;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.metadata.TableProperties;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.TypeUtil;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Column changes to a table schema (the spec's schema evolution), applied in call order, each
 * checked against the schema as the calls before it left it:
 *
 * <pre>
 *   SchemaUpdate update = SchemaUpdate.of(base)
 *       .addColumn(List.of("point", "z"), Types.DoubleType.get(), "height")
 *       .moveAfter(List.of("point", "z"), "y")
 *       .renameColumn(List.of("ts"), "event_ts")
 *       .updateColumnType(List.of("id"), Types.LongType.get());
 *   TableMetadata next = update.applyTo(TableMetadata.buildFrom(base)).build();
 * </pre>
 *
 * <p>A column is named by its path: struct fields by name, a list's element as {@code element}, a
 * map's key and value as {@code key} and {@code value}. Nothing here touches files or the base
 * metadata; a refused change throws {@link IllegalArgumentException} naming the column and why.
 *
 * <p>Rules: added columns are optional and get ids above {@code last-column-id} (their nested
 * fields too), so a dropped then re-added name is a new column and never shows the old values;
 * types change only by the spec's promotions (int to long, float to double, decimal(P, S) to
 * decimal(P2, S) with P2 &gt; P); a column may become optional, never required; map keys never
 * change; a column that an identifier field, a field of the current partition spec or the default
 * sort order uses cannot be dropped.
 */
public final class SchemaUpdate {
  /** Table properties that name a column after this prefix; they follow renames and drops. */
  static final List<String> COLUMN_PROPERTY_PREFIXES = List.of(
      TableProperties.METRICS_MODE_COLUMN_PREFIX, TableProperties.PARQUET_BLOOM_FILTER_COLUMN_PREFIX,
      TableProperties.PARQUET_STATS_ENABLED_COLUMN_PREFIX);

  private final Schema base;
  private final PartitionSpec spec;
  private final SortOrder sortOrder;
  private final Map<String, String> properties;
  private Schema schema;
  private int lastColumnId;

  private SchemaUpdate(Schema base, int lastColumnId, PartitionSpec spec, SortOrder sortOrder,
      Map<String, String> properties) {
    if (lastColumnId < base.highestFieldId()) {
      throw new IllegalArgumentException("Invalid last column id " + lastColumnId
          + ": less than the schema's highest field id " + base.highestFieldId());
    }
    this.base = base;
    this.schema = base;
    this.lastColumnId = lastColumnId;
    this.spec = spec;
    this.sortOrder = sortOrder;
    this.properties = properties;
  }

  /** Changes to a bare schema: no partition spec, sort order or properties to keep consistent. */
  public SchemaUpdate(Schema schema, int lastColumnId) {
    this(schema, lastColumnId, PartitionSpec.unpartitioned(), SortOrder.unsorted(), Map.of());
  }

  /** Changes to a table's current schema, checked against its current spec and sort order. */
  public static SchemaUpdate of(TableMetadata table) {
    return new SchemaUpdate(table.schema(), table.lastColumnId(), table.spec(), table.sortOrder(),
        table.properties());
  }

  /**
   * The schema with every change so far (it keeps the base's schema id). Refused when the table or
   * a struct would have no fields left, which Parquet cannot store, or when two fields would share
   * a full dotted name (a top-level {@code `a.b`} and field {@code b} of struct {@code a}).
   */
  public Schema apply() {
    if (schema.columns().isEmpty()) {
      throw SchemaErrors.invalidChange(null,
          "Cannot drop every column of the table: a table needs at least one column");
    }
    for (Types.NestedField column : schema.columns()) {
      String owner = emptyStruct(column.type(), column.name(), column.name());
      if (owner != null) {
        throw SchemaErrors.invalidChange(owner, "Cannot leave a struct without fields in column " + owner
            + " (Parquet cannot store an empty struct): drop " + owner + " instead");
      }
    }
    String duplicate = TypeUtil.duplicateFullName(schema.asStruct());
    if (duplicate != null) {
      throw SchemaErrors.ambiguousName(duplicate);
    }
    return schema;
  }

  /** The column to drop instead of keeping an empty struct in {@code type} (at {@code name}), or null. */
  private static String emptyStruct(Type type, String name, String owner) {
    switch (type.typeId()) {
      case STRUCT:
        if (type.asStructType().fields().isEmpty()) {
          return owner;
        }
        for (Types.NestedField f : type.asStructType().fields()) {
          String found = emptyStruct(f.type(), name + "." + f.name(), name + "." + f.name());
          if (found != null) {
            return found;
          }
        }
        return null;
      case LIST:
        return emptyStruct(type.asListType().elementType(), name + ".element", owner);
      case MAP: {
        String inKey = emptyStruct(type.asMapType().keyType(), name + ".key", owner);
        return inKey != null ? inKey : emptyStruct(type.asMapType().valueType(), name + ".value", owner);
      }
      default:
        return null;
    }
  }

  /** The table's last column id after the changes so far. */
  public int lastColumnId() {
    return lastColumnId;
  }

  public boolean hasColumn(List<String> path) {
    return SchemaTree.locate(schema, path) != null;
  }

  /**
   * Makes the changed schema current in {@code builder} (a new schema id unless an identical schema
   * exists) and moves the column-named properties of renamed columns and removes those of dropped ones.
   * The table's name mapping ({@link NameMapping}), when it has one, gets the new names and columns.
   */
  public TableMetadataBuilder applyTo(TableMetadataBuilder builder) {
    builder.setCurrentSchema(apply(), lastColumnId);
    Map<String, String> moved = new HashMap<>();
    Set<String> removed = new HashSet<>();
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String renamed = renamedProperty(e.getKey());
      if (!e.getKey().equals(renamed)) {
        removed.add(e.getKey());
        if (renamed != null) {
          moved.put(renamed, e.getValue());
        }
      }
    }
    removed.removeAll(moved.keySet());
    String mapping = properties.get(NameMapping.DEFAULT);
    if (mapping != null) {
      try {
        moved.put(NameMapping.DEFAULT, NameMapping.parse(mapping).updatedFor(apply()).toJson());
      } catch (IllegalArgumentException e) {
        // another engine's mapping Floe cannot parse: left as it is (readers report it)
      }
    }
    return builder.removeProperties(removed).setProperties(moved);
  }

  /** The key a column-named property gets (null when its column was dropped); other keys unchanged. */
  private String renamedProperty(String key) {
    for (String prefix : COLUMN_PROPERTY_PREFIXES) {
      if (key.startsWith(prefix)) {
        Integer id = base.idFor(key.substring(prefix.length()));
        if (id == null) {
          return key;
        }
        String now = schema.findColumnName(id);
        return now == null ? null : prefix + now;
      }
    }
    return key;
  }

  /** Adds an optional column at the end of its struct; fields nested in {@code type} get fresh ids. */
  public SchemaUpdate addColumn(List<String> path, Type type, String doc) {
    checkPath(path);
    String name = path.get(path.size() - 1);
    String fullName = String.join(".", path);
    int parentId = parentForAdd(path, fullName);
    if (name.isEmpty()) {
      throw SchemaErrors.invalidChange(fullName, "Cannot add column " + fullName + ": the name is empty");
    }
    if (SchemaTree.struct(schema, parentId).field(name) != null) {
      throw SchemaErrors.invalidChange(fullName, "Cannot add column " + fullName + ": it already exists");
    }
    Schema wrapped = new Schema(List.of(Types.NestedField.optional(-1, name, type, doc)));
    Types.NestedField added = TypeUtil.assignFreshIds(0, wrapped, () -> ++lastColumnId).columns().get(0);
    schema = SchemaTree.replaceFields(schema, parentId, fields -> {
      List<Types.NestedField> out = new ArrayList<>(fields);
      out.add(added);
      return out;
    });
    return this;
  }

  /** Always refused: existing rows would have no value for the column (the spec requires a default). */
  public SchemaUpdate addRequiredColumn(List<String> path, Type type, String doc) {
    checkPath(path);
    String fullName = String.join(".", path);
    parentForAdd(path, fullName);
    throw SchemaErrors.invalidChange(fullName, "Cannot add required column " + fullName
        + ": rows already in the table have no value for it and Floe has no column defaults;"
        + " add it as a nullable column (without NOT NULL)");
  }

  /** The id owning the struct that gets the new field: the struct itself, or a list's element or map's value struct. */
  private int parentForAdd(List<String> path, String fullName) {
    if (path.size() == 1) {
      return SchemaTree.ROOT;
    }
    String parentName = String.join(".", path.subList(0, path.size() - 1));
    Located parent = SchemaTree.locate(schema, path.subList(0, path.size() - 1));
    if (parent == null) {
      throw SchemaErrors.invalidChange(fullName, "Cannot add column " + fullName + ": parent " + parentName
          + " does not exist");
    }
    Types.NestedField container = parent.field();
    if (container.type().typeId() == Type.TypeID.LIST) {
      container = container.type().asListType().elementField();
    } else if (container.type().typeId() == Type.TypeID.MAP) {
      container = container.type().asMapType().valueField();
    }
    if (parent.inMapKey()) {
      throw SchemaErrors.invalidChange(fullName, "Cannot add column " + fullName + ": map keys cannot change");
    }
    if (!container.type().isStructType()) {
      throw SchemaErrors.invalidChange(fullName, "Cannot add column " + fullName + ": parent " + parentName
          + " is " + container.type() + ", not a struct");
    }
    return container.fieldId();
  }

  /** Drops a struct field and everything in it. */
  public SchemaUpdate deleteColumn(List<String> path) {
    Located column = find(path, "drop");
    String name = String.join(".", path);
    structFieldOnly(column, "drop", name);
    Set<Integer> ids = SchemaTree.idsWithin(column.field());
    for (int id : schema.identifierFieldIds()) {
      if (ids.contains(id)) {
        throw SchemaErrors.invalidChange(name, "Cannot drop column " + name + ": "
            + (id == column.field().fieldId() ? "it is" : "it contains " + schema.findColumnName(id) + ", which is")
            + " an identifier field of the table");
      }
    }
    for (PartitionField field : spec.fields()) {
      if (ids.contains(field.sourceId()) && !field.transform().isVoid()) {
        throw SchemaErrors.invalidChange(name, "Cannot drop column " + name + ": it is used by partition field "
            + field.name() + " (" + field.transform() + ") of the current partition spec; drop the partition"
            + " field first (ALTER TABLE ... DROP PARTITION FIELD " + field.name() + ")");
      }
    }
    for (SortField field : sortOrder.fields()) {
      if (ids.contains(field.sourceId())) {
        throw SchemaErrors.invalidChange(name, "Cannot drop column " + name + ": the table's sort order "
            + sortOrder.orderId() + " sorts by it; change the sort order first");
      }
    }
    schema = SchemaTree.replaceField(schema, column.field().fieldId(), f -> null);
    return this;
  }

  /** Renames a struct field; its id, data and partition fields stay. */
  public SchemaUpdate renameColumn(List<String> path, String newName) {
    Located column = find(path, "rename");
    String name = String.join(".", path);
    structFieldOnly(column, "rename", name);
    if (newName == null || newName.isEmpty()) {
      throw SchemaErrors.invalidChange(name, "Cannot rename column " + name + " to an empty name");
    }
    if (newName.equals(column.field().name())) {
      return this;
    }
    if (SchemaTree.struct(schema, column.parentId()).field(newName) != null) {
      throw SchemaErrors.invalidChange(name, "Cannot rename column " + name + " to " + newName
          + ": a column with that name already exists");
    }
    schema = SchemaTree.replaceField(schema, column.field().fieldId(), f -> f.withName(newName));
    return this;
  }

  /** Changes a primitive column's type; only the spec's promotions are allowed. */
  public SchemaUpdate updateColumnType(List<String> path, Type newType) {
    Located column = find(path, "change the type of");
    String name = String.join(".", path);
    Type current = column.field().type();
    if (column.inMapKey()) {
      throw SchemaErrors.invalidChange(name, "Cannot change the type of column " + name + ": map keys cannot change");
    }
    if (!current.isPrimitiveType()) {
      throw SchemaErrors.invalidChange(name, "Cannot change the type of column " + name + ": it is a "
          + current.typeId().name().toLowerCase(Locale.ROOT) + "; change its fields instead");
    }
    if (current.equals(newType)) {
      return this;
    }
    if (!isPromotionAllowed(current, newType)) {
      throw SchemaErrors.invalidChange(name, "Cannot change column " + name + " from " + current + " to " + newType
          + ": the only type changes allowed are int -> long (bigint), float -> double and"
          + " decimal(P, S) -> decimal(P2, S) with P2 > P");
    }
    schema = SchemaTree.replaceField(schema, column.field().fieldId(), f -> f.withType(newType));
    return this;
  }

  /** True for the spec's promotions: int to long, float to double, wider decimal precision at the same scale. */
  public static boolean isPromotionAllowed(Type from, Type to) {
    Objects.requireNonNull(to, "New type is null");
    switch (from.typeId()) {
      case INTEGER:
        return to.typeId() == Type.TypeID.LONG;
      case FLOAT:
        return to.typeId() == Type.TypeID.DOUBLE;
      case DECIMAL:
        if (to.typeId() != Type.TypeID.DECIMAL) {
          return false;
        }
        Types.DecimalType a = (Types.DecimalType) from;
        Types.DecimalType b = (Types.DecimalType) to;
        return a.scale() == b.scale() && a.precision() < b.precision();
      default:
        return false;
    }
  }

  /** Makes a column (or a list element or map value) optional; a no-op when it already is. */
  public SchemaUpdate makeColumnOptional(List<String> path) {
    Located column = find(path, "drop NOT NULL of");
    String name = String.join(".", path);
    if (column.field().isOptional()) {
      return this;
    }
    if (column.inMapKey()) {
      throw SchemaErrors.invalidChange(name, "Cannot drop NOT NULL of column " + name + ": map keys cannot change");
    }
    if (schema.identifierFieldIds().contains(column.field().fieldId())) {
      throw SchemaErrors.invalidChange(name, "Cannot drop NOT NULL of column " + name
          + ": it is an identifier field, and identifier fields are required");
    }
    schema = SchemaTree.replaceField(schema, column.field().fieldId(), Types.NestedField::asOptional);
    return this;
  }

  /** Refused unless the column is already required: rows in the table may hold nulls. */
  public SchemaUpdate requireColumn(List<String> path) {
    Located column = find(path, "set NOT NULL on");
    if (column.field().isRequired()) {
      return this;
    }
    throw SchemaErrors.invalidChange(String.join(".", path), "Cannot set NOT NULL on column " + String.join(".", path)
        + ": rows in the table may hold nulls; only dropping NOT NULL is allowed");
  }

  /** Sets (or with null, removes) a struct field's comment. */
  public SchemaUpdate updateColumnDoc(List<String> path, String doc) {
    Located column = find(path, "comment on");
    String name = String.join(".", path);
    structFieldOnly(column, "comment on", name);
    if (!Objects.equals(doc, column.field().doc())) {
      schema = SchemaTree.replaceField(schema, column.field().fieldId(), f -> f.withDoc(doc));
    }
    return this;
  }

  /** Moves a struct field to the start of its struct. */
  public SchemaUpdate moveFirst(List<String> path) {
    return move(path, null);
  }

  /** Moves a struct field right after its sibling {@code afterName}. */
  public SchemaUpdate moveAfter(List<String> path, String afterName) {
    return move(path, Objects.requireNonNull(afterName, "Column to move after is null"));
  }

  private SchemaUpdate move(List<String> path, String afterName) {
    Located column = find(path, "move");
    String name = String.join(".", path);
    structFieldOnly(column, "move", name);
    int id = column.field().fieldId();
    Types.NestedField after = null;
    if (afterName != null) {
      after = SchemaTree.field(SchemaTree.struct(schema, column.parentId()), afterName);
      if (after == null) {
        throw SchemaErrors.invalidChange(name, "Cannot move column " + name + " after " + afterName + ": "
            + afterName + " is not a field of the same struct");
      }
      if (after.fieldId() == id) {
        throw SchemaErrors.invalidChange(name, "Cannot move column " + name + " after itself");
      }
    }
    int afterId = after == null ? SchemaTree.ROOT : after.fieldId();
    schema = SchemaTree.replaceFields(schema, column.parentId(), fields -> {
      List<Types.NestedField> out = new ArrayList<>(fields);
      Types.NestedField moved = out.stream().filter(f -> f.fieldId() == id).findFirst().orElseThrow();
      out.remove(moved);
      int index = 0;
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).fieldId() == afterId) {
          index = i + 1;
        }
      }
      out.add(index, moved);
      return out;
    });
    return this;
  }

  private Located find(List<String> path, String action) {
    checkPath(path);
    Located column = SchemaTree.locate(schema, path);
    if (column == null) {
      throw SchemaErrors.columnNotFound(String.join(".", path), "Cannot " + action + " column " + String.join(".", path)
          + ": no such column");
    }
    return column;
  }

  private static void structFieldOnly(Located column, String action, String name) {
    if (column.role() != Role.STRUCT_FIELD) {
      throw SchemaErrors.invalidChange(name, "Cannot " + action + " " + name + ": it is the "
          + column.role().name().toLowerCase(Locale.ROOT) + " of a "
          + (column.role() == Role.ELEMENT ? "list" : "map") + ", not a struct field");
    }
    if (column.inMapKey()) {
      throw SchemaErrors.invalidChange(name, "Cannot " + action + " column " + name + ": map keys cannot change");
    }
  }

  private static void checkPath(List<String> path) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("Invalid column path: empty");
    }
  }
}
