package io.floe.format.commit;

/** A commit lost a race or its base was stale; nothing was published, and the commit may be retried. */
public class CommitFailedException extends RuntimeException {
  public CommitFailedException(String message) {
    super(message);
  }

  public CommitFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
