package io.floe.format.commit;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;

/** A concurrent change conflicts with this commit, so retrying cannot help. */
public class ValidationException extends FloeException {
  public ValidationException(String message) {
    super(ErrorClass.FLOE_CONCURRENT_CHANGE_CONFLICT, message);
  }
}
