package io.floe.format;

/**
 * The error classes of Floe's user-facing errors: a stable name (engines show it, clients match on
 * it) and a SQLSTATE. Listed in README.md's "Errors" section; a test keeps the two in step.
 */
public enum ErrorClass {
  // catalog (CatalogErrors)
  FLOE_NAMESPACE_NOT_FOUND("42704", "a namespace does not exist"),
  FLOE_NAMESPACE_ALREADY_EXISTS("42P06", "a namespace already exists"),
  FLOE_NAMESPACE_NOT_EMPTY("2BP01", "a namespace to drop still holds tables or namespaces"),
  FLOE_TABLE_NOT_FOUND("42P01", "a table does not exist"),
  FLOE_TABLE_ALREADY_EXISTS("42P07", "a table already exists"),
  FLOE_INVALID_IDENTIFIER("42602", "a table or namespace name Floe cannot store"),
  FLOE_NAME_CONFLICT("42710", "a table and a namespace (or leftover files) would share a folder"),
  FLOE_LOCATION_IN_USE("42000", "a table location is shared with another table, a namespace or other files"),
  FLOE_RENAME_FAILED("55000", "a rename failed and was undone (or says how to undo it)"),
  FLOE_METADATA_TABLE_NOT_FOUND("42P01", "an unknown metadata table such as db.t.nope"),
  // schema and partitioning (SchemaErrors)
  FLOE_SCHEMA_CHANGE_INVALID("42000", "a schema change Floe refuses (ALTER TABLE ... COLUMN)"),
  FLOE_COLUMN_NOT_FOUND("42703", "a column named in a statement or procedure does not exist"),
  FLOE_COLUMN_NAME_AMBIGUOUS("42702", "two columns would share one full name (a top-level `a.b` and field b of struct a)"),
  FLOE_TYPE_UNSUPPORTED("0A000", "a data type Floe tables cannot hold"),
  FLOE_PARTITIONING_INVALID("42000", "a partition transform or partition change Floe refuses"),
  FLOE_SORT_ORDER_INVALID("42000", "a write or rewrite sort order Floe refuses"),
  FLOE_OVERWRITE_CONDITION_INVALID("42000", "an overwrite (REPLACE WHERE) condition that cannot replace whole files"),
  // snapshots and time travel (SnapshotErrors)
  FLOE_SNAPSHOT_NOT_FOUND("42704", "a snapshot, branch or tag that the table does not have"),
  FLOE_TIME_TRAVEL_INVALID("22023", "a time travel target the table's history cannot answer"),
  // commit and conflict (commit exceptions)
  FLOE_COMMIT_CONFLICT("40001", "a concurrent commit won the race; the statement may be retried"),
  FLOE_CONCURRENT_CHANGE_CONFLICT("40001", "a concurrent change conflicts with this one; retrying cannot help"),
  FLOE_COMMIT_STATE_UNKNOWN("40003", "whether a commit landed is unknown; refresh the table to find out"),
  FLOE_WRITE_REFUSED("0A000", "a write to a table whose features or version this Floe cannot write"),
  // procedures (ProcedureErrors)
  FLOE_PROCEDURE_NOT_FOUND("42883", "a CALL of a procedure Floe does not have"),
  FLOE_PROCEDURE_ARGUMENT_INVALID("22023", "a procedure argument that is missing, of the wrong form or out of range"),
  FLOE_PROCEDURE_REFUSED("55000", "a procedure that refuses to run on this table as it is"),
  // options and properties (OptionErrors)
  FLOE_OPTION_INVALID("22023", "a read or write option with a value Floe does not accept"),
  FLOE_TABLE_PROPERTY_INVALID("22023", "a table property with a value Floe does not accept"),
  // secondary indexes (index.IndexErrors)
  FLOE_INDEX_ALREADY_EXISTS("42710", "an index of that name already exists on the table"),
  FLOE_INDEX_NOT_FOUND("42704", "an index that the table does not have"),
  // files (FileErrors, FloeFormatException)
  FLOE_FILE_INVALID("58030", "a metadata or data file that is missing, corrupt or not what the spec says"),
  // anything else a statement asked for that Floe does not do
  FLOE_UNSUPPORTED("0A000", "a statement or option Floe does not support");

  private final String sqlState;
  private final String description;

  ErrorClass(String sqlState, String description) {
    this.sqlState = sqlState;
    this.description = description;
  }

  /** The five-character SQLSTATE (class and subclass) that JDBC and ODBC clients see. */
  public String sqlState() {
    return sqlState;
  }

  /** What the class covers, for the README's table of error classes. */
  public String description() {
    return description;
  }
}
