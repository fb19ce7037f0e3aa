package io.floe.spark;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.OptionErrors;
import io.floe.format.SchemaErrors;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.index.IndexErrors;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListFiles;
import io.floe.format.index.TableIndex;
import io.floe.format.commit.SchemaUpdate;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.metadata.TableProperties;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkSchemas;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies ALTER TABLE changes as one metadata commit: table properties, the format version and
 * column changes (through the format's {@link SchemaUpdate}, in the order Spark lists them). A
 * refused column change fails the statement with an AnalysisException and commits nothing.
 */
final class TableAlterations {
  private static final Logger LOG = LoggerFactory.getLogger(TableAlterations.class);

  private TableAlterations() {}

  /** Commits the changes; a lost race is retried on the new version (property changes never conflict). */
  static void apply(FileSystemTableOperations ops, TableChange... changes) {
    for (int attempt = 1; ; attempt++) {
      try {
        applyOnce(ops, ops.refresh(), changes);
        return;
      } catch (io.floe.format.commit.CommitFailedException e) {
        if (attempt >= 5) {
          throw e;
        }
      }
    }
  }

  private static void applyOnce(FileSystemTableOperations ops, TableMetadata base, TableChange... changes) {
    Map<String, String> updates = new HashMap<>();
    Set<String> removals = new HashSet<>();
    Integer newFormatVersion = null;
    SchemaUpdate columns = null;
    for (TableChange change : changes) {
      if (change instanceof TableChange.SetProperty) {
        TableChange.SetProperty set = (TableChange.SetProperty) change;
        if (set.property().equals("format-version")) {
          newFormatVersion = parseFormatVersion(ops, base, set.value());
        } else if (set.property().equals(TableProperties.INDEXES)) {
          throw SparkExceptions.thrown(IndexErrors.reservedProperty(ops.tableName(), set.property()));
        } else if (set.property().equals("location") || set.property().equals("provider")) {
          throw SparkExceptions.thrown(OptionErrors.invalidProperty(ops.tableName(), set.property(),
              "Cannot change reserved table property '" + set.property() + "' of table " + ops.tableName()
                  + ": it is fixed when the table is created (RENAME or CREATE TABLE ... AS SELECT moves data)"));
        } else {
          updates.put(set.property(), set.value());
        }
      } else if (change instanceof TableChange.RemoveProperty) {
        String key = ((TableChange.RemoveProperty) change).property();
        if (key.equals(TableProperties.INDEXES)) {
          throw SparkExceptions.thrown(IndexErrors.reservedProperty(ops.tableName(), key));
        }
        if (key.equals("format-version")) {
          throw SparkExceptions.thrown(OptionErrors.invalidProperty(ops.tableName(), key,
              "Cannot remove format-version of table " + ops.tableName() + ": every table has one"));
        }
        removals.add(key);
      } else if (change instanceof TableChange.ColumnChange) {
        if (columns == null) {
          columns = SchemaUpdate.of(base);
        }
        applyColumnChange(ops, columns, (TableChange.ColumnChange) change);
      } else {
        throw SparkExceptions.thrown(OptionErrors.unsupported("Unsupported table change for table "
            + ops.tableName() + ": " + change.getClass().getSimpleName()));
      }
    }
    if (columns != null) {
      checkResult(ops, columns);
    }
    SparkExceptions.checkTableProperties(ops.tableName(), updates);
    boolean onlyColumns = updates.isEmpty() && removals.isEmpty() && newFormatVersion == null;
    boolean columnsUnchanged = columns == null
        || (columns.apply().sameSchema(base.schema()) && columns.lastColumnId() == base.lastColumnId());
    if (onlyColumns && columnsUnchanged) {
      return; // e.g. DROP COLUMN IF EXISTS of a missing column: no new version
    }
    TableMetadataBuilder builder = TableMetadata.buildFrom(base);
    if (columns != null) {
      columns.applyTo(builder);
    }
    if (columns != null) {
      dropIndexesOfDroppedColumns(ops, base, columns.apply(), updates);
    }
    builder.setProperties(updates).removeProperties(removals);
    if (newFormatVersion != null && newFormatVersion != base.formatVersion()) {
      builder.upgradeFormatVersion(newFormatVersion);
    }
    ops.commit(base, builder.build());
  }

  /**
   * DROP COLUMN of an indexed column drops its indexes in the same commit (docs/indexes.md): the new
   * index list goes into {@code updates}. A rename keeps them, since indexes track field ids.
   */
  private static void dropIndexesOfDroppedColumns(FileSystemTableOperations ops, TableMetadata base, Schema schema,
      Map<String, String> updates) {
    if (IndexListFiles.currentLocation(base.properties()) == null) {
      return;
    }
    IndexList current = IndexListFiles.read(ops.io(), ops.tableName(), base.properties());
    IndexList.Builder next = IndexList.buildFrom(current);
    boolean changed = false;
    for (TableIndex index : current.indexes()) {
      if (schema.findField(index.sourceFieldId()) == null) {
        next.remove(index.name());
        changed = true;
        LOG.warn("Dropped index {} of table {}: its column was dropped", index.name(), ops.tableName());
      }
    }
    if (changed) {
      updates.put(TableProperties.INDEXES, IndexListFiles.write(ops.io(), ops.metadataRoot() + "/metadata",
          next.build()));
    }
  }

  private static void applyColumnChange(FileSystemTableOperations ops, SchemaUpdate columns,
      TableChange.ColumnChange change) {
    List<String> path = Arrays.asList(change.fieldNames());
    try {
      if (change instanceof TableChange.AddColumn) {
        TableChange.AddColumn add = (TableChange.AddColumn) change;
        if (add.defaultValue() != null) {
          throw SchemaErrors.invalidChange(String.join(".", path), "Cannot add column " + String.join(".", path)
              + " with a DEFAULT value: Floe has no column defaults");
        }
        Type type = floeType(path, add.dataType());
        if (add.isNullable()) {
          columns.addColumn(path, type, add.comment());
        } else {
          columns.addRequiredColumn(path, type, add.comment());
        }
        move(columns, path, add.position());
      } else if (change instanceof TableChange.RenameColumn) {
        columns.renameColumn(path, ((TableChange.RenameColumn) change).newName());
      } else if (change instanceof TableChange.DeleteColumn) {
        if (!Boolean.TRUE.equals(((TableChange.DeleteColumn) change).ifExists()) || columns.hasColumn(path)) {
          columns.deleteColumn(path);
        }
      } else if (change instanceof TableChange.UpdateColumnType) {
        columns.updateColumnType(path, floeType(path, ((TableChange.UpdateColumnType) change).newDataType()));
      } else if (change instanceof TableChange.UpdateColumnNullability) {
        if (((TableChange.UpdateColumnNullability) change).nullable()) {
          columns.makeColumnOptional(path);
        } else {
          columns.requireColumn(path);
        }
      } else if (change instanceof TableChange.UpdateColumnComment) {
        columns.updateColumnDoc(path, ((TableChange.UpdateColumnComment) change).newComment());
      } else if (change instanceof TableChange.UpdateColumnPosition) {
        move(columns, path, ((TableChange.UpdateColumnPosition) change).position());
      } else if (change instanceof TableChange.UpdateColumnDefaultValue) {
        throw SchemaErrors.invalidChange(String.join(".", path), "Cannot set a DEFAULT value on column "
            + String.join(".", path) + ": Floe has no column defaults");
      } else {
        throw SchemaErrors.invalidChange(String.join(".", path), "Unsupported column change "
            + change.getClass().getSimpleName() + " of column " + String.join(".", path));
      }
    } catch (IllegalArgumentException | FloeException e) {
      throw userError(ops, e);
    }
  }

  /** Fails the statement when the changes together leave an invalid schema (e.g. a struct without fields). */
  private static void checkResult(FileSystemTableOperations ops, SchemaUpdate columns) {
    try {
      columns.apply();
    } catch (IllegalArgumentException | FloeException e) {
      throw userError(ops, e);
    }
  }

  private static RuntimeException userError(FileSystemTableOperations ops, RuntimeException e) {
    return SparkExceptions.thrown("Cannot alter table " + ops.tableName() + ": ", e,
        ErrorClass.FLOE_SCHEMA_CHANGE_INVALID);
  }

  private static void move(SchemaUpdate columns, List<String> path, TableChange.ColumnPosition position) {
    if (position instanceof TableChange.First) {
      columns.moveFirst(path);
    } else if (position instanceof TableChange.After) {
      columns.moveAfter(path, ((TableChange.After) position).column());
    }
  }

  /** The Floe type of a Spark type (with placeholder ids for nested fields; the update assigns fresh ones). */
  private static Type floeType(List<String> path, DataType type) {
    SparkSchemas.refuseCharVarchar(new StructType().add(String.join(".", path), type));
    String name = path.get(path.size() - 1);
    return SparkSchemas.convert(new StructType().add(name, type)).columns().get(0).type();
  }

  private static int parseFormatVersion(FileSystemTableOperations ops, TableMetadata base, String value) {
    int v;
    try {
      v = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw SparkExceptions.thrown(OptionErrors.invalidProperty(ops.tableName(), "format-version",
          "Invalid format-version '" + value + "' for table " + ops.tableName() + ": use 2 or 3"));
    }
    if (v < base.formatVersion()) {
      throw SparkExceptions.thrown(OptionErrors.invalidProperty(ops.tableName(), "format-version",
          "Cannot downgrade table " + ops.tableName() + " from format version " + base.formatVersion() + " to " + v
              + ": a format version can only be raised"));
    }
    if (v > 3) {
      throw SparkExceptions.thrown(OptionErrors.invalidProperty(ops.tableName(), "format-version",
          "Unsupported format-version " + v + " for table " + ops.tableName()
              + ": Floe supports format versions up to 3"));
    }
    return v;
  }
}
