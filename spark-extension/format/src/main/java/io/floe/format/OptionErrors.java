package io.floe.format;

import static io.floe.format.FloeException.params;

/**
 * Builds the user-facing errors of read and write options and of table properties (see also
 * CatalogErrors.invalidTableProperty for a known property's value).
 */
public final class OptionErrors {
  private OptionErrors() {}

  /** A read or write {@code option} whose {@code value} Floe does not accept; {@code message} says what it accepts. */
  public static FloeException invalidOption(String option, String value, String message) {
    return new FloeException(ErrorClass.FLOE_OPTION_INVALID, message, params("option", option, "value", value), null);
  }

  /** A table {@code property} whose value (or combination with another) Floe does not accept. */
  public static FloeException invalidProperty(String table, String property, String message) {
    return new FloeException(ErrorClass.FLOE_TABLE_PROPERTY_INVALID, message,
        params("table", table, "property", property), null);
  }

  /** A statement, option or feature Floe does not support; {@code message} says what to do instead. */
  public static FloeException unsupported(String message) {
    return new FloeException(ErrorClass.FLOE_UNSUPPORTED, message);
  }
}
