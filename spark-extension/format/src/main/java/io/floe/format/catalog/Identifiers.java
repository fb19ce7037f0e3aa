package io.floe.format.catalog;

import java.util.List;

/**
 * Rules for namespace and table names, which become directory names under the warehouse: a name
 * that could escape the warehouse or hide from listings is rejected.
 */
public final class Identifiers {
  private Identifiers() {}

  public static void checkNamespace(List<String> namespace) {
    for (String part : namespace) {
      checkPart("namespace", part);
    }
  }

  public static void checkPart(String what, String part) {
    if (part == null || part.isEmpty()) {
      throw CatalogErrors.invalidIdentifier(what, String.valueOf(part), "names must not be empty");
    }
    if (part.equals(".") || part.equals("..")) {
      throw CatalogErrors.invalidIdentifier(what, part, "'.' and '..' are not allowed as names");
    }
    if (part.startsWith(".")) {
      throw CatalogErrors.invalidIdentifier(what, part, "names must not start with '.'");
    }
    if (part.length() > 255) {
      throw CatalogErrors.invalidIdentifier(what, part.substring(0, 40) + "...", "names must be at most 255 characters");
    }
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c == '/' || c == '\\') {
        throw CatalogErrors.invalidIdentifier(what, part, "names must not contain '/' or '\\'");
      }
      if (Character.isISOControl(c)) {
        throw CatalogErrors.invalidIdentifier(what, part, "names must not contain control characters");
      }
      if (c == ':') {
        throw CatalogErrors.invalidIdentifier(what, part, "names must not contain ':'");
      }
    }
  }
}
