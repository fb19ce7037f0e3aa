package io.floe.format;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A user-facing Floe error: the message says what is wrong, names the table, column, file or option,
 * and says what to do; {@link #errorClass()} classifies it and {@link #parameters()} holds the named
 * things (e.g. {@code table}, {@code column}) so an engine can show them as structured fields.
 * Built by the area factories (CatalogErrors, SchemaErrors, SnapshotErrors, ProcedureErrors,
 * OptionErrors, FileErrors); subclasses such as CommitFailedException keep their own type so that
 * retry and conflict handling can catch them.
 */
public class FloeException extends RuntimeException {
  private final ErrorClass errorClass;
  private final Map<String, String> parameters;

  public FloeException(ErrorClass errorClass, String message) {
    this(errorClass, message, Map.of(), null);
  }

  public FloeException(ErrorClass errorClass, String message, Throwable cause) {
    this(errorClass, message, Map.of(), cause);
  }

  /** {@code parameters}: the named objects (table, column, file, option, value), in order; nulls are dropped. */
  public FloeException(ErrorClass errorClass, String message, Map<String, String> parameters, Throwable cause) {
    super(message, cause);
    this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    Map<String, String> copy = new LinkedHashMap<>();
    parameters.forEach((k, v) -> {
      if (v != null) {
        copy.put(k, v);
      }
    });
    this.parameters = Collections.unmodifiableMap(copy);
  }

  public ErrorClass errorClass() {
    return errorClass;
  }

  /** The named objects of the message (without the message itself), in insertion order. */
  public Map<String, String> parameters() {
    return parameters;
  }

  /**
   * {@code e} with {@code prefix} (e.g. "Cannot alter table db.t: ") before its message, keeping
   * its class and parameters when it is a FloeException and using {@code fallback} when it is not
   * (an argument check of a lower layer that a user's statement reached).
   */
  public static FloeException prefixed(String prefix, RuntimeException e, ErrorClass fallback) {
    return reworded(e, fallback, prefix + e.getMessage());
  }

  /** {@code e} with {@code message} instead of its own; class and parameters as {@link #prefixed}. */
  public static FloeException reworded(RuntimeException e, ErrorClass fallback, String message) {
    if (e instanceof FloeException) {
      FloeException floe = (FloeException) e;
      return new FloeException(floe.errorClass, message, floe.parameters, floe);
    }
    return new FloeException(fallback, message, Map.of(), e);
  }

  /** Ordered parameters from alternating keys and values: {@code params("table", t, "column", c)}. */
  public static Map<String, String> params(String... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("params needs key/value pairs, got " + keysAndValues.length + " strings");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return out;
  }
}
