package io.floe.format;

import java.util.Map;

/**
 * A file the format reads is missing, corrupt or not what the spec says; the message names the file
 * (error class {@link ErrorClass#FLOE_FILE_INVALID}; see {@link FileErrors}).
 */
public class FloeFormatException extends FloeException {
  public FloeFormatException(String message) {
    super(ErrorClass.FLOE_FILE_INVALID, message);
  }

  public FloeFormatException(String message, Throwable cause) {
    super(ErrorClass.FLOE_FILE_INVALID, message, cause);
  }

  FloeFormatException(String message, Map<String, String> parameters, Throwable cause) {
    super(ErrorClass.FLOE_FILE_INVALID, message, parameters, cause);
  }
}
