package io.floe.format.index;

import java.util.Locale;

/**
 * The kinds of secondary index (docs/indexes.md). Both share one paged layout of sorted keys and
 * differ in what a page stores per key: {@link #INVERTED} a Roaring bitmap of file ordinals (a value
 * held by many files), {@link #BTREE} a short list of file ordinals (a unique or near-unique key).
 */
public enum IndexType {
  INVERTED("inverted", 0),
  BTREE("btree", 1);

  private final String typeName;
  private final int code;

  IndexType(String typeName, int code) {
    this.typeName = typeName;
    this.code = code;
  }

  /** The name used in SQL ({@code USING btree}) and in the index list JSON. */
  public String typeName() {
    return typeName;
  }

  /** The byte that stands for this type in a segment's directory blob. */
  int code() {
    return code;
  }

  /** The type named {@code name}, case-insensitive; fails listing the known names. */
  public static IndexType fromName(String name) {
    for (IndexType type : values()) {
      if (type.typeName.equals(name == null ? null : name.toLowerCase(Locale.ROOT))) {
        return type;
      }
    }
    throw new IllegalArgumentException("Unknown index type: " + name + " (expected inverted or btree)");
  }

  static IndexType fromCode(int code) {
    for (IndexType type : values()) {
      if (type.code == code) {
        return type;
      }
    }
    return null;
  }
}
