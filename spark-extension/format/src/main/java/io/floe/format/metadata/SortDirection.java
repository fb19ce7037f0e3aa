package io.floe.format.metadata;

/** Sort direction of a sort field; JSON {@code asc} / {@code desc}. */
public enum SortDirection {
  ASC("asc"),
  DESC("desc");

  private final String jsonName;

  SortDirection(String jsonName) {
    this.jsonName = jsonName;
  }

  public String jsonName() {
    return jsonName;
  }

  public static SortDirection fromString(String value) {
    for (SortDirection d : values()) {
      if (d.jsonName.equalsIgnoreCase(value.trim())) {
        return d;
      }
    }
    throw new IllegalArgumentException("Invalid sort direction: " + value);
  }
}
