package io.floe.format.index;

import io.floe.format.ErrorClass;

import io.floe.format.types.Type;

/** Builds every index error, so each names the table, the index, the file and what to do. */
public final class IndexErrors {
  private IndexErrors() {}

  private static final String FALLBACK = ". Queries scan without this index until it is rebuilt "
      + "(CALL floe.system.rewrite_index) or dropped (DROP INDEX)";

  /** A segment file that is missing or cannot be read as an index segment. */
  public static IndexException unreadableSegment(String table, String index, String location, String problem,
      Throwable cause) {
    return new IndexException(table, index, location, "Cannot read segment " + location + " of index " + index
        + " on table " + table + ": " + problem + FALLBACK, cause);
  }

  /** A segment whose bytes do not match the layout: {@code where}, what was expected and what was found. */
  public static IndexException corruptSegment(String table, String index, String location, String where,
      String expected, String found) {
    return new IndexException(table, index, location, "Invalid segment " + location + " of index " + index
        + " on table " + table + ": " + where + ", expected " + expected + ", found " + found + FALLBACK, null);
  }

  /** The index list file named by the table's {@code floe.indexes} property cannot be read or parsed. */
  public static IndexException unreadableIndexList(String table, String location, String problem, Throwable cause) {
    return new IndexException(table, null, location, "Cannot read the index list " + location + " of table "
        + table + ": " + problem + ". Queries scan without indexes; drop and re-create the indexes to repair it",
        cause);
  }

  /** A column whose type no index supports. */
  public static IndexException unsupportedType(String table, String index, String column, Type type) {
    return new IndexException(ErrorClass.FLOE_TYPE_UNSUPPORTED, table, index, null,
        "Cannot index column " + column + " of table " + table
        + " with index " + index + ": type " + type + " is not supported (supported: "
        + IndexKeys.SUPPORTED_NAMES + "). Index another column, or "
        + "filter on this one without an index", null);
  }

  /** CREATE INDEX names a field inside a list or map column: one row holds many values of it. */
  public static IndexException insideCollection(String table, String index, String column, String collection,
      Type collectionType) {
    return new IndexException(ErrorClass.FLOE_TYPE_UNSUPPORTED, table, index, null,
        "Cannot index column " + column + " of table " + table + " with index " + index + ": it is inside "
        + collection + " of type " + collectionType + ", and fields of lists and maps cannot be indexed (supported: "
        + IndexKeys.SUPPORTED_NAMES + ", also as fields of structs)", null);
  }

  /** CREATE INDEX names a column the table does not have. */
  public static IndexException unknownColumn(String table, String index, String column) {
    return new IndexException(ErrorClass.FLOE_COLUMN_NOT_FOUND, table, index, null,
        "Cannot create index " + index + " on table " + table
        + ": column " + column + " does not exist. DESCRIBE TABLE " + table + " lists the columns", null);
  }

  /** CREATE INDEX names more than one column, or none. */
  public static IndexException notOneColumn(String table, String index, int count) {
    return new IndexException(ErrorClass.FLOE_UNSUPPORTED, table, index, null,
        "Cannot create index " + index + " on table " + table
        + ": an index covers exactly one column, found " + count + ". Create one index per column", null);
  }

  /** CREATE INDEX with a type other than inverted or btree. */
  public static IndexException unknownType(String table, String index, String type) {
    return new IndexException(ErrorClass.FLOE_UNSUPPORTED, table, index, null,
        "Cannot create index " + index + " on table " + table
        + ": unknown index type '" + type + "' (expected inverted or btree)", null);
  }

  /** CREATE INDEX with an option the index does not know. */
  public static IndexException unknownOption(String table, String index, String option) {
    return new IndexException(ErrorClass.FLOE_OPTION_INVALID, table, index, null,
        "Cannot create index " + index + " on table " + table
        + ": unknown option '" + option + "' (known: " + TableIndex.MAINTENANCE + " = "
        + TableIndex.MAINTENANCE_SYNC + " | " + TableIndex.MAINTENANCE_DEFERRED + ")", null);
  }

  /** An index of that name exists (create, or a second concurrent build of the same name). */
  public static IndexException indexExists(String table, String index) {
    return new IndexException(ErrorClass.FLOE_INDEX_ALREADY_EXISTS, table, index, null,
        "Cannot create index " + index + " on table " + table
        + ": an index of that name exists. Drop it first (DROP INDEX " + index + " ON " + table
        + ") or use CREATE INDEX IF NOT EXISTS", null);
  }

  /** DROP INDEX, rewrite_index and the like name an index the table does not have. */
  public static IndexException noSuchIndex(String table, String index) {
    return new IndexException(ErrorClass.FLOE_INDEX_NOT_FOUND, table, index, null,
        "Index " + index + " does not exist on table " + table
        + ". SELECT name FROM " + table + ".indexes lists its indexes", null);
  }

  /** A user sets or removes the {@code floe.indexes} table property by hand. */
  public static IndexException reservedProperty(String table, String property) {
    return new IndexException(ErrorClass.FLOE_TABLE_PROPERTY_INVALID, table, null, null,
        "Cannot set or remove table property " + property
        + " of table " + table + ": Floe sets it when indexes change. Use CREATE INDEX and DROP INDEX", null);
  }
}
