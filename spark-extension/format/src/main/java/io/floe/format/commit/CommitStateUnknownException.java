package io.floe.format.commit;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;

/**
 * Whether a commit landed is unknown (publishing failed ambiguously and reading back failed too).
 * Callers must not delete any file the commit wrote.
 */
public class CommitStateUnknownException extends FloeException {
  public CommitStateUnknownException(String message, Throwable cause) {
    super(ErrorClass.FLOE_COMMIT_STATE_UNKNOWN,
        message + ". The commit may or may not have landed; no files were removed. Refresh the table to find out.",
        cause);
  }
}
