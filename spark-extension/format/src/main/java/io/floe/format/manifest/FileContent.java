package io.floe.format.manifest;

/** What a content file holds; the id is the {@code content} value (field 134) in manifests. */
public enum FileContent {
  DATA(0),
  POSITION_DELETES(1),
  EQUALITY_DELETES(2);

  private final int id;

  FileContent(int id) {
    this.id = id;
  }

  public int id() {
    return id;
  }

  private static final FileContent[] ALL = values();

  public static FileContent fromId(int id) {
    for (FileContent c : ALL) {
      if (c.id == id) {
        return c;
      }
    }
    throw new IllegalArgumentException("Unknown file content id: " + id + " (expected 0, 1 or 2)");
  }
}
