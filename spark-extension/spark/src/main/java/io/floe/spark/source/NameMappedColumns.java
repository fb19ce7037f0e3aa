package io.floe.spark.source;

import io.floe.format.metadata.NameMapping;
import io.floe.spark.util.SparkSchemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Applies a table's name mapping to a file without field ids: each requested column (carrying its
 * field id) is asked for by the name its data has in the file, the file column whose name the
 * mapping gives that id. So a renamed column still finds the values written under its old name,
 * and a dropped column's old values never show up under a new column that happens to reuse its
 * name (unless the mapping says that name is the new column's, as Iceberg's readers also do).
 *
 * <p>A requested column with no mapped file column keeps its name when no mapping entry of its
 * level claims that name (a column added while an older Floe did not keep the mapping current)
 * and reads as nulls otherwise. Struct fields are mapped at any depth through structs; fields of
 * structs inside lists and maps keep their names. Unless {@code spark.sql.caseSensitive} is on, a
 * file column also takes a mapped name that differs only in case (add_files accepts such files,
 * and Spark's own matching by name ignores case too).
 */
final class NameMappedColumns {
  /** A name no Parquet column has: Spark's reader then returns nulls for the column. */
  static final String UNMAPPED_SUFFIX = "\u0000not-in-file";

  private NameMappedColumns() {}

  /** {@code requested} with each field renamed to the file's column for its id (see the class comment). */
  static StructType apply(StructType requested, GroupType file, NameMapping mapping, boolean caseSensitive) {
    return apply(requested, file, mapping.fields(), caseSensitive);
  }

  private static StructType apply(StructType requested, GroupType file, List<NameMapping.MappedField> level,
      boolean caseSensitive) {
    Map<Integer, Type> fileColumnById = new HashMap<>();
    for (Type column : file.getFields()) {
      NameMapping.MappedField mapped = find(level, column.getName(), caseSensitive);
      if (mapped != null && mapped.fieldId() != null) {
        fileColumnById.putIfAbsent(mapped.fieldId(), column);
      }
    }
    List<StructField> out = new ArrayList<>(requested.fields().length);
    for (StructField field : requested.fields()) {
      if (!field.metadata().contains(SparkSchemas.FIELD_ID_KEY)) {
        out.add(field); // metadata columns (_file, _pos) are not read from the file
        continue;
      }
      int id = (int) field.metadata().getLong(SparkSchemas.FIELD_ID_KEY);
      Type column = fileColumnById.get(id);
      String name;
      if (column != null) {
        name = column.getName();
      } else if (find(level, field.name(), caseSensitive) == null) {
        name = field.name(); // not in the mapping: matched by its own name, as before there was one
      } else {
        name = field.name() + UNMAPPED_SUFFIX; // the file's column of that name is another field's
      }
      org.apache.spark.sql.types.DataType type = field.dataType();
      if (column != null && type instanceof StructType struct && !column.isPrimitive()) {
        NameMapping.MappedField mapped = findById(level, id);
        type = apply(struct, column.asGroupType(), mapped == null ? List.of() : mapped.fields(), caseSensitive);
      }
      out.add(new StructField(name, type, field.nullable(), field.metadata()));
    }
    return new StructType(out.toArray(new StructField[0]));
  }

  /** The mapped field listing {@code name}; without case sensitivity, else one listing it in another case. */
  private static NameMapping.MappedField find(List<NameMapping.MappedField> level, String name,
      boolean caseSensitive) {
    NameMapping.MappedField exact = null;
    NameMapping.MappedField folded = null;
    for (NameMapping.MappedField f : level) {
      for (String mappedName : f.names()) {
        if (mappedName.equals(name)) {
          exact = exact == null ? f : exact;
        } else if (!caseSensitive && folded == null && mappedName.equalsIgnoreCase(name)) {
          folded = f;
        }
      }
    }
    return exact != null ? exact : folded;
  }

  private static NameMapping.MappedField findById(List<NameMapping.MappedField> level, int id) {
    for (NameMapping.MappedField f : level) {
      if (f.fieldId() != null && f.fieldId() == id) {
        return f;
      }
    }
    return null;
  }
}
