package io.floe.format.metadata;

/** Where nulls sort; JSON {@code nulls-first} / {@code nulls-last}. */
public enum NullOrder {
  NULLS_FIRST("nulls-first"),
  NULLS_LAST("nulls-last");

  private final String jsonName;

  NullOrder(String jsonName) {
    this.jsonName = jsonName;
  }

  public String jsonName() {
    return jsonName;
  }

  public static NullOrder fromString(String value) {
    for (NullOrder o : values()) {
      if (o.jsonName.equalsIgnoreCase(value.trim())) {
        return o;
      }
    }
    throw new IllegalArgumentException("Invalid null order: " + value);
  }
}
