package io.floe.format.metadata;

import java.util.Objects;

/** One {@code metadata-log} entry: a previous metadata file and its {@code last-updated-ms}. */
public record MetadataLogEntry(long timestampMillis, String file) {
  public MetadataLogEntry {
    Objects.requireNonNull(file, "Metadata log file is null");
  }
}
