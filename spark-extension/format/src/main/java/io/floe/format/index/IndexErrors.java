package io.floe.format.index;

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
    return new IndexException(table, index, null, "Cannot index column " + column + " of table " + table
        + " with index " + index + ": type " + type + " is not supported (supported: "
        + IndexKeys.SUPPORTED_NAMES + "). Index another column, or "
        + "filter on this one without an index", null);
  }
}
