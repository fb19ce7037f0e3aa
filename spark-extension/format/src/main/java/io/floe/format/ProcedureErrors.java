package io.floe.format;

import static io.floe.format.FloeException.params;

/** Builds the user-facing errors of stored procedures: the procedure, the argument and what it accepts. */
public final class ProcedureErrors {
  private ProcedureErrors() {}

  /** {@code procedure} is not one of Floe's; {@code message} lists the ones there are. */
  public static FloeException notFound(String procedure, String message) {
    return new FloeException(ErrorClass.FLOE_PROCEDURE_NOT_FOUND, message, params("procedure", procedure), null);
  }

  /** An argument of {@code procedure} that is missing, malformed or out of range; {@code message} says which. */
  public static FloeException invalidArgument(String procedure, String argument, String message) {
    return new FloeException(ErrorClass.FLOE_PROCEDURE_ARGUMENT_INVALID, message,
        params("procedure", procedure, "argument", argument), null);
  }

  /** {@code procedure} refuses to run on {@code table} as the table is; {@code message} says why and what to do. */
  public static FloeException refused(String procedure, String table, String message, Throwable cause) {
    return new FloeException(ErrorClass.FLOE_PROCEDURE_REFUSED, message,
        params("procedure", procedure, "table", table), cause);
  }
}
