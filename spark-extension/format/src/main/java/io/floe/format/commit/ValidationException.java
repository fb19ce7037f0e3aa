package io.floe.format.commit;

/** A concurrent change conflicts with this commit, so retrying cannot help. */
public class ValidationException extends RuntimeException {
  public ValidationException(String message) {
    super(message);
  }
}
