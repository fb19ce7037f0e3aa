package io.floe.format.metadata;

import java.util.Locale;

/** The two kinds of snapshot reference; JSON form is the lower-case name. */
public enum SnapshotRefType {
  BRANCH,
  TAG;

  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static SnapshotRefType fromString(String type) {
    for (SnapshotRefType t : values()) {
      if (t.name().equalsIgnoreCase(type.trim())) {
        return t;
      }
    }
    throw new IllegalArgumentException("Invalid snapshot ref type: " + type);
  }
}
