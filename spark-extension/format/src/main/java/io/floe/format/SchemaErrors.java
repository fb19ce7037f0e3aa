package io.floe.format;

import static io.floe.format.FloeException.params;

import java.util.Collection;

/**
 * Builds the user-facing errors of schemas, partitioning and sort orders: each names the table or
 * column and the value refused, and says what to do.
 */
public final class SchemaErrors {
  private SchemaErrors() {}

  /** A schema change (add, drop, rename, retype a column) Floe refuses; {@code message} says why. */
  public static FloeException invalidChange(String column, String message) {
    return new FloeException(ErrorClass.FLOE_SCHEMA_CHANGE_INVALID, message, params("column", column), null);
  }

  /** {@code column} is not a column of the schema at hand; {@code where} names the table or statement. */
  public static FloeException columnNotFound(String where, String column, Collection<String> columns) {
    return new FloeException(ErrorClass.FLOE_COLUMN_NOT_FOUND, "Cannot find column '" + column + "' in " + where
        + (columns == null || columns.isEmpty() ? "" : "; its columns are " + String.join(", ", columns))
        + ". Check the column name", params("column", column, "table", where), null);
  }

  /** A column {@code message} refers to does not exist (the message names it). */
  public static FloeException columnNotFound(String column, String message) {
    return new FloeException(ErrorClass.FLOE_COLUMN_NOT_FOUND, message, params("column", column), null);
  }

  /**
   * Two fields of a schema have the same full dotted name {@code name}, as a top-level column
   * {@code `a.b`} and field {@code b} of struct {@code a}: names in filters, partition specs and
   * other engines (Iceberg refuses such a schema) would be ambiguous. The caller prefixes the table.
   */
  public static FloeException ambiguousName(String name) {
    return new FloeException(ErrorClass.FLOE_COLUMN_NAME_AMBIGUOUS, "two columns have the full name '" + name
        + "' (a column whose name contains a dot and a field of a struct column); full names must be unique,"
        + " as in Iceberg. Rename one of them", params("column", name), null);
  }

  /** A data type Floe tables cannot hold. */
  public static FloeException unsupportedType(String column, String type, String message) {
    return new FloeException(ErrorClass.FLOE_TYPE_UNSUPPORTED, message, params("column", column, "type", type), null);
  }

  /** A partition transform, field or partition change Floe refuses. */
  public static FloeException invalidPartitioning(String field, String message) {
    return new FloeException(ErrorClass.FLOE_PARTITIONING_INVALID, message, params("field", field), null);
  }

  /** A sort order (write order, rewrite sort order) Floe refuses. */
  public static FloeException invalidSortOrder(String table, String message) {
    return new FloeException(ErrorClass.FLOE_SORT_ORDER_INVALID, message, params("table", table), null);
  }

  /**
   * An overwrite of {@code table} {@code where condition} that uses {@code column}, which is not an
   * identity partition column, so the overwrite could not replace whole files.
   */
  public static FloeException overwriteNotOnIdentityPartition(String table, String condition, String column,
      Collection<String> identityColumns) {
    return new FloeException(ErrorClass.FLOE_OVERWRITE_CONDITION_INVALID, "Cannot overwrite table " + table
        + " where " + condition + ": column " + column + " is not an identity partition column. An overwrite"
        + " condition may only use " + (identityColumns.isEmpty()
            ? "identity partition columns, and this table has none"
            : "the identity partition columns (" + String.join(", ", identityColumns) + ")")
        + ", so that it replaces whole files", params("table", table, "condition", condition, "column", column), null);
  }
}
