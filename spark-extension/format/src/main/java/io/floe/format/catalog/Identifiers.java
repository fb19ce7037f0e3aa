package io.floe.format.catalog;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Rules for namespace and table names, which become folder names under the warehouse. A name may
 * hold Unicode letters, combining marks and digits, {@code _}, {@code -}, {@code $}, spaces and dots;
 * it must not start with a dot or a space, end with a space, or be longer than 255 bytes in UTF-8
 * (the usual file-name limit). Everything else is refused: separators ({@code / \ :}), the URI
 * characters {@code % ? #} (a {@code %2E%2E} must never be read as {@code ..} by any reader), glob
 * characters, quotes, control and invisible format characters. Locations are built from names by
 * {@link FileSystemCatalog#namespaceLocation} alone, and every location is taken literally (never
 * percent-decoded), so a name that passes these rules is one folder directly below its parent.
 * See docs/format.md ("Names and locations").
 */
public final class Identifiers {
  static final int MAX_NAME_BYTES = 255;
  static final String ALLOWED = "Unicode letters and digits, '_', '-', '$', spaces and '.' (not first)";

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
    if (part.startsWith(" ") || part.endsWith(" ")) {
      throw CatalogErrors.invalidIdentifier(what, part, "names must not start or end with a space");
    }
    int bytes = part.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw CatalogErrors.invalidIdentifier(what, part.substring(0, Math.min(40, part.length())) + "...",
          "names must be at most " + MAX_NAME_BYTES + " bytes in UTF-8 (this one has " + bytes + ")");
    }
    for (int i = 0; i < part.length(); ) {
      int cp = part.codePointAt(i);
      if (!allowed(cp)) {
        throw CatalogErrors.invalidIdentifier(what, part, "character " + describe(cp)
            + " is not allowed; names may hold " + ALLOWED);
      }
      i += Character.charCount(cp);
    }
  }

  private static boolean allowed(int cp) {
    if (cp == '_' || cp == '-' || cp == '$' || cp == ' ' || cp == '.') {
      return true;
    }
    switch (Character.getType(cp)) {
      case Character.UPPERCASE_LETTER:
      case Character.LOWERCASE_LETTER:
      case Character.TITLECASE_LETTER:
      case Character.MODIFIER_LETTER:
      case Character.OTHER_LETTER:
      case Character.NON_SPACING_MARK:
      case Character.COMBINING_SPACING_MARK:
      case Character.DECIMAL_DIGIT_NUMBER:
        return true;
      default:
        return false; // unpaired surrogates, controls, format characters, other symbols and punctuation
    }
  }

  private static String describe(int cp) {
    if (cp >= 0x21 && cp < 0x7f) {
      return "'" + new String(Character.toChars(cp)) + "'";
    }
    return String.format("U+%04X", cp);
  }
}
