package io.floe.format.manifest;

import java.util.Locale;

/** A content file's format; written upper-case in manifests ({@code PARQUET}), read case-insensitively. */
public enum FileFormat {
  PARQUET,
  AVRO,
  ORC,
  PUFFIN;

  private static final FileFormat[] ALL = values();

  public static FileFormat fromString(String format) {
    for (FileFormat f : ALL) {
      if (f.name().equals(format)) {
        return f; // as written: no copies per manifest entry
      }
    }
    try {
      return valueOf(format.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("Unknown file format: " + format, e);
    }
  }
}
