package io.floe.format.io;

import java.io.IOException;
import java.io.OutputStream;

/** A file to write. {@link #create()} fails if the file exists. */
public interface OutputFile {
  String location();

  OutputStream create() throws IOException;

  OutputStream createOrOverwrite() throws IOException;

  InputFile toInputFile();
}
