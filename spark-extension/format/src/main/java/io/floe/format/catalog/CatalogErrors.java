package io.floe.format.catalog;

import java.util.List;

/** Builds every user-facing catalog error, so each names the problem, the object and what to do. */
public final class CatalogErrors {
  private CatalogErrors() {}

  public static String display(List<String> namespace) {
    return String.join(".", namespace);
  }

  public static CatalogException noSuchNamespace(List<String> namespace) {
    return new CatalogException(CatalogException.Kind.NO_SUCH_NAMESPACE,
        "Namespace " + display(namespace) + " does not exist. Create it with CREATE NAMESPACE " + display(namespace));
  }

  public static CatalogException namespaceExists(List<String> namespace) {
    return new CatalogException(CatalogException.Kind.NAMESPACE_EXISTS,
        "Namespace " + display(namespace) + " already exists");
  }

  public static CatalogException namespaceNotEmpty(List<String> namespace, List<String> children) {
    return new CatalogException(CatalogException.Kind.NAMESPACE_NOT_EMPTY,
        "Cannot drop namespace " + display(namespace) + ": it is not empty (contains " + String.join(", ", children)
            + "). Use DROP NAMESPACE ... CASCADE to drop it with its contents");
  }

  public static CatalogException noSuchTable(TableIdentifier ident) {
    return new CatalogException(CatalogException.Kind.NO_SUCH_TABLE, "Table " + ident + " does not exist");
  }

  public static CatalogException tableExists(TableIdentifier ident) {
    return new CatalogException(CatalogException.Kind.TABLE_EXISTS, "Table " + ident + " already exists");
  }

  /** A namespace cannot be created where a table is. */
  public static CatalogException tableAtNamespaceFolder(List<String> namespace, String folder) {
    return new CatalogException(CatalogException.Kind.NAME_CONFLICT,
        "Cannot create namespace " + display(namespace) + ": table " + display(namespace)
            + " exists with that name (folder " + folder + "), and a namespace and a table cannot share a"
            + " folder. Choose another name, or drop the table first");
  }

  /** A table cannot be created in a folder that already exists (a namespace, or leftover files). */
  public static CatalogException folderTaken(TableIdentifier ident, String folder, List<String> contents) {
    boolean namespace = contents.isEmpty() || contents.contains(".namespace-properties.json")
        || !contents.contains("data") && !contents.contains("metadata");
    String message = namespace
        ? "Cannot create table " + ident + ": namespace " + ident + " exists with that name (folder " + folder
            + "), and a table and a namespace cannot share a folder. Choose another table name, or drop namespace "
            + ident + " first"
        : "Cannot create table " + ident + ": its folder " + folder + " already holds files of an earlier table"
            + " or another tool (" + summary(contents) + "). Choose another table name, or move those files away";
    return new CatalogException(CatalogException.Kind.NAME_CONFLICT, message);
  }

  private static String summary(List<String> contents) {
    List<String> shown = contents.size() > 5 ? contents.subList(0, 5) : contents;
    return String.join(", ", shown) + (contents.size() > 5 ? ", ... " + (contents.size() - 5) + " more" : "");
  }

  public static CatalogException invalidIdentifier(String what, String value, String reason) {
    return new CatalogException(CatalogException.Kind.INVALID_IDENTIFIER,
        "Invalid " + what + " '" + printable(value) + "': " + reason);
  }

  public static CatalogException unsupported(String message) {
    return new CatalogException(CatalogException.Kind.UNSUPPORTED, message);
  }

  /**
   * A rename that failed and was undone: the table keeps its old name, metadata and files, and the
   * files the attempt wrote are deleted (unless the cause says the commit state is unknown).
   */
  public static CatalogException renameFailed(TableIdentifier from, TableIdentifier to, Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String why = cause.getMessage() + (root == cause || root.getMessage() == null
        || String.valueOf(cause.getMessage()).contains(root.getMessage()) ? "" : " (" + root.getMessage() + ")");
    return new CatalogException(CatalogException.Kind.RENAME_FAILED, "Cannot rename table " + from + " to " + to
        + ": " + why + ". The table keeps its name " + from + " and its data; fix the cause and run the rename"
        + " again", cause);
  }

  /** A rename whose commit failed and whose directory could not be moved back. */
  public static CatalogException renameNotUndone(TableIdentifier from, TableIdentifier to, String newRoot,
      String oldRoot, Throwable cause) {
    return new CatalogException(CatalogException.Kind.RENAME_FAILED, "Cannot rename table " + from + " to " + to
        + ": " + cause.getMessage() + ", and cannot move its directory back from " + newRoot + " to " + oldRoot
        + ". Move that directory back by hand; table " + from + " is unreadable until then", cause);
  }

  /** A delete file whose content names data files, and which this rename cannot rewrite. */
  public static CatalogException cannotRewriteDeleteFile(String table, String deleteFile, String why) {
    return unsupported("Cannot move position delete file " + deleteFile + " of table " + table
        + ": it names the table's data files by path, and " + why);
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
          || Character.isSurrogate(c) || Character.isSpaceChar(c) && c != ' ') {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
