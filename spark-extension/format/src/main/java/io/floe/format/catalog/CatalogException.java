package io.floe.format.catalog;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import java.util.Map;

/**
 * A user-facing catalog problem; {@link #kind()} lets the engine map it to its own exception type,
 * and each kind has its {@link ErrorClass}.
 */
public final class CatalogException extends FloeException {
  public enum Kind {
    NO_SUCH_NAMESPACE(ErrorClass.FLOE_NAMESPACE_NOT_FOUND),
    NAMESPACE_EXISTS(ErrorClass.FLOE_NAMESPACE_ALREADY_EXISTS),
    NAMESPACE_NOT_EMPTY(ErrorClass.FLOE_NAMESPACE_NOT_EMPTY),
    NO_SUCH_TABLE(ErrorClass.FLOE_TABLE_NOT_FOUND),
    TABLE_EXISTS(ErrorClass.FLOE_TABLE_ALREADY_EXISTS),
    INVALID_IDENTIFIER(ErrorClass.FLOE_INVALID_IDENTIFIER),
    /** a table and a namespace (or leftover files) would share a folder */
    NAME_CONFLICT(ErrorClass.FLOE_NAME_CONFLICT),
    UNSUPPORTED(ErrorClass.FLOE_UNSUPPORTED),
    /** a table's location is, or would be, shared with another table, a namespace or other files */
    LOCATION_IN_USE(ErrorClass.FLOE_LOCATION_IN_USE),
    /** a table property value of the wrong type or out of range */
    INVALID_PROPERTY(ErrorClass.FLOE_TABLE_PROPERTY_INVALID),
    /** a rename failed and was undone (or, when it says so, could not be) */
    RENAME_FAILED(ErrorClass.FLOE_RENAME_FAILED);

    private final ErrorClass errorClass;

    Kind(ErrorClass errorClass) {
      this.errorClass = errorClass;
    }

    public ErrorClass errorClass() {
      return errorClass;
    }
  }

  private final Kind kind;

  CatalogException(Kind kind, String message) {
    this(kind, message, Map.of(), null);
  }

  CatalogException(Kind kind, String message, Throwable cause) {
    this(kind, message, Map.of(), cause);
  }

  CatalogException(Kind kind, String message, Map<String, String> parameters, Throwable cause) {
    super(kind.errorClass(), message, parameters, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
