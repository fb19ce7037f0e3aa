package io.floe.format.puffin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The footer payload of a Puffin file: its blobs, in file order, and file properties. */
public final class FileMetadata {
  private final List<BlobMetadata> blobs;
  private final Map<String, String> properties;

  public FileMetadata(List<BlobMetadata> blobs, Map<String, String> properties) {
    this.blobs = List.copyOf(blobs);
    this.properties = properties == null ? Map.of()
        : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  public List<BlobMetadata> blobs() {
    return blobs;
  }

  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FileMetadata && blobs.equals(((FileMetadata) o).blobs)
        && properties.equals(((FileMetadata) o).properties);
  }

  @Override
  public int hashCode() {
    return blobs.hashCode() * 31 + properties.hashCode();
  }
}
