package io.floe.format.commit;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;

/** A commit lost a race or its base was stale; nothing was published, and the commit may be retried. */
public class CommitFailedException extends FloeException {
  public CommitFailedException(String message) {
    super(ErrorClass.FLOE_COMMIT_CONFLICT, message);
  }

  public CommitFailedException(String message, Throwable cause) {
    super(ErrorClass.FLOE_COMMIT_CONFLICT, message, cause);
  }
}
