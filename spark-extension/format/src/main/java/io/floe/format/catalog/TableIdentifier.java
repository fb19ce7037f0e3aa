package io.floe.format.catalog;

import java.util.List;

/** A table's namespace levels and name. Validated: every part is a safe single path segment. */
public record TableIdentifier(List<String> namespace, String name) {
  public TableIdentifier {
    namespace = List.copyOf(namespace);
    Identifiers.checkNamespace(namespace);
    Identifiers.checkPart("table name", name);
  }

  public static TableIdentifier of(List<String> namespace, String name) {
    return new TableIdentifier(namespace, name);
  }

  @Override
  public String toString() {
    return namespace.isEmpty() ? name : String.join(".", namespace) + "." + name;
  }
}
