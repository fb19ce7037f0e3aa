package io.floe.format.io;

import java.io.IOException;
import java.io.InputStream;

/** A file to read. */
public interface InputFile {
  String location();

  long length();

  boolean exists();

  InputStream newStream() throws IOException;

  /** Reads the whole file; for metadata-sized files only. */
  default byte[] readAllBytes() throws IOException {
    try (InputStream in = newStream()) {
      return in.readAllBytes();
    }
  }
}
