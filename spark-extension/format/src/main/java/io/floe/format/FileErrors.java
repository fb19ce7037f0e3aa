package io.floe.format;

import static io.floe.format.FloeException.params;

/** Builds the errors of files that are missing, corrupt or not what the spec says, naming the file. */
public final class FileErrors {
  private FileErrors() {}

  /** {@code file} is corrupt: {@code found} says what was read and what was expected. */
  public static FloeFormatException corrupt(String file, String found) {
    return new FloeFormatException("Cannot read " + file + ": " + found, params("file", file), null);
  }

  /** {@code file}, which {@code owner} lists, cannot be read; {@code cause} says why. */
  public static FloeFormatException unreadable(String file, String owner, Throwable cause) {
    return new FloeFormatException("Cannot read " + file + (owner == null ? "" : " (listed by " + owner + ")")
        + ": " + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()),
        params("file", file), cause);
  }
}
