package io.floe.format.manifest;

/** What a manifest lists: data files or delete files (field 517 and the {@code content} file metadata). */
public enum ManifestContent {
  DATA(0, "data"),
  DELETES(1, "deletes");

  private final int id;
  private final String metadataName;

  ManifestContent(int id, String metadataName) {
    this.id = id;
    this.metadataName = metadataName;
  }

  public int id() {
    return id;
  }

  /** The value of the manifest's {@code content} key-value metadata. */
  public String metadataName() {
    return metadataName;
  }

  public static ManifestContent fromId(int id) {
    for (ManifestContent c : values()) {
      if (c.id == id) {
        return c;
      }
    }
    throw new IllegalArgumentException("Unknown manifest content id: " + id + " (expected 0 or 1)");
  }

  /** The content a manifest may hold files of. */
  public boolean accepts(FileContent fileContent) {
    return (fileContent == FileContent.DATA) == (this == DATA);
  }
}
