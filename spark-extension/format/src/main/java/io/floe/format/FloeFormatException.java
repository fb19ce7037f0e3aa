package io.floe.format;

/** A file the format reads is missing, corrupt or not what the spec says; the message names the file. */
public class FloeFormatException extends RuntimeException {
  public FloeFormatException(String message) {
    super(message);
  }

  public FloeFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
