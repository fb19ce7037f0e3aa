package io.floe.format.manifest;

import java.util.Locale;

/** A content file's format; written upper-case in manifests ({@code PARQUET}), read case-insensitively. */
public enum FileFormat {
  PARQUET,
  AVRO,
  ORC,
  PUFFIN;

  public static FileFormat fromString(String format) {
    try {
      return valueOf(format.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("Unknown file format: " + format, e);
    }
  }
}
