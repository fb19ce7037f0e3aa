package io.floe.format.catalog;

/** A user-facing catalog problem; {@link #kind()} lets the engine map it to its own exception type. */
public final class CatalogException extends RuntimeException {
  public enum Kind {
    NO_SUCH_NAMESPACE, NAMESPACE_EXISTS, NAMESPACE_NOT_EMPTY, NO_SUCH_TABLE, TABLE_EXISTS, INVALID_IDENTIFIER,
    /** a table and a namespace (or leftover files) would share a folder */
    NAME_CONFLICT, UNSUPPORTED,
    /** a table's location is, or would be, shared with another table, a namespace or other files */
    LOCATION_IN_USE,
    /** a table property value of the wrong type or out of range */
    INVALID_PROPERTY,
    /** a rename failed and was undone (or, when it says so, could not be) */
    RENAME_FAILED
  }

  private final Kind kind;

  CatalogException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  CatalogException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
