package io.floe.format.commit;

/**
 * Whether a commit landed is unknown (publishing failed ambiguously and reading back failed too).
 * Callers must not delete any file the commit wrote.
 */
public class CommitStateUnknownException extends RuntimeException {
  public CommitStateUnknownException(String message, Throwable cause) {
    super(message + ". The commit may or may not have landed; no files were removed. Refresh the table to find out.",
        cause);
  }
}
