package io.floe.format.catalog;

import static io.floe.format.FloeException.params;

import io.floe.format.metadata.TableProperties;
import io.floe.format.metadata.TableProperty;
import java.util.List;

/** Builds every user-facing catalog error, so each names the problem, the object and what to do. */
public final class CatalogErrors {
  private CatalogErrors() {}

  public static String display(List<String> namespace) {
    return String.join(".", namespace);
  }

  public static CatalogException noSuchNamespace(List<String> namespace) {
    return new CatalogException(CatalogException.Kind.NO_SUCH_NAMESPACE,
        "Namespace " + display(namespace) + " does not exist. Create it with CREATE NAMESPACE " + display(namespace),
        params("namespace", display(namespace)), null);
  }

  public static CatalogException namespaceExists(List<String> namespace) {
    return new CatalogException(CatalogException.Kind.NAMESPACE_EXISTS,
        "Namespace " + display(namespace) + " already exists", params("namespace", display(namespace)), null);
  }

  public static CatalogException namespaceNotEmpty(List<String> namespace, List<String> children) {
    return new CatalogException(CatalogException.Kind.NAMESPACE_NOT_EMPTY,
        "Cannot drop namespace " + display(namespace) + ": it is not empty (contains " + String.join(", ", children)
            + "). Use DROP NAMESPACE ... CASCADE to drop it with its contents",
        params("namespace", display(namespace)), null);
  }

  public static CatalogException noSuchTable(TableIdentifier ident) {
    return new CatalogException(CatalogException.Kind.NO_SUCH_TABLE, "Table " + ident + " does not exist",
        params("table", ident.toString()), null);
  }

  public static CatalogException tableExists(TableIdentifier ident) {
    return new CatalogException(CatalogException.Kind.TABLE_EXISTS, "Table " + ident + " already exists",
        params("table", ident.toString()), null);
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
        "Invalid " + what + " '" + printable(value) + "': " + reason, params("name", printable(value)), null);
  }

  /**
   * A value that known table property {@code property} does not accept, naming the table, the key,
   * the value and the values accepted (see {@link TableProperties#firstInvalid}).
   */
  public static CatalogException invalidTableProperty(String table, TableProperty property, String value) {
    return new CatalogException(CatalogException.Kind.INVALID_PROPERTY,
        "Invalid value '" + printable(value) + "' for table property " + property.key() + " of table " + table
            + ": expected " + property.accepted() + ". Nothing was changed",
        params("table", table, "property", property.key(), "value", printable(value)), null);
  }

  public static CatalogException unsupported(String message) {
    return new CatalogException(CatalogException.Kind.UNSUPPORTED, message);
  }

  /** The catalog option that allows non-atomic commits on object stores (see HadoopFileIO). */
  public static final String OBJECT_STORE_COMMITS_OPTION = "object-store-commits";

  /** A commit to an object store that cannot make conditional writes, with unsafe commits not allowed. */
  public static CatalogException conditionalWritesUnavailable(String store, String location, String why) {
    return new CatalogException(CatalogException.Kind.UNSUPPORTED, "Cannot commit " + location + " on " + store
        + ": commits to an object store need conditional writes (put-if-absent, If-None-Match: *), and " + why
        + ". Use a store and connector with conditional writes, or, only if one writer at a time ever commits,"
        + " set spark.sql.catalog.<catalog>." + OBJECT_STORE_COMMITS_OPTION + "=unsafe-rename (UNSAFE: two"
        + " concurrent commits can both succeed and one of them is lost). Nothing was committed",
        params("store", store, "location", location), null);
  }

  /** RENAME of a table whose folder is on an object store, where a folder cannot move in one step. */
  public static CatalogException renameOnObjectStore(TableIdentifier from, TableIdentifier to, String location) {
    return new CatalogException(CatalogException.Kind.UNSUPPORTED, "Cannot rename table " + from + " to " + to
        + ": its folder " + location + " is on an object store, where a folder cannot be moved in one step"
        + " (every file would be copied, and readers would see a half-moved table). Copy the table instead"
        + " (CREATE TABLE " + to + " AS SELECT * FROM " + from + ", then DROP TABLE " + from + "). Nothing was"
        + " changed", params("table", from.toString(), "location", location), null);
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
        + " again", params("table", from.toString(), "newName", to.toString()), cause);
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

  /**
   * A table cannot be created at {@code location}: {@code reason} says what is there (another
   * table, a namespace, files) and names the owner when known.
   */
  public static CatalogException locationInUse(String table, String location, String reason) {
    return new CatalogException(CatalogException.Kind.LOCATION_IN_USE, "Cannot create table " + table
        + " at location '" + location + "': " + reason + ". A table's location must be a new or empty folder that "
        + "no other table, namespace or file uses: orphan removal and DROP TABLE ... PURGE of the new table would "
        + "delete whatever else is there. Omit LOCATION to use the table's own warehouse folder, or choose a new one",
        params("table", table, "location", location), null);
  }

  /**
   * {@code action} (e.g. "remove orphan files of") refuses to run on {@code table}: its location
   * holds the metadata of another table ({@code file}, with table UUID {@code otherUuid}).
   */
  /** A table's location from which {@code action} must never delete (or that register_table must not take). */
  public static CatalogException unsafeLocation(String action, String table, String location, String reason) {
    return new CatalogException(CatalogException.Kind.LOCATION_IN_USE, "Cannot " + action + " table " + table
        + ": its location '" + location + "' " + reason + ". Nothing was changed or deleted. A table's location"
        + " must be a folder of its own, used by no other table or namespace",
        params("table", table, "location", location), null);
  }

  public static CatalogException locationShared(String action, String table, String location, String file,
      String ownUuid, String otherUuid) {
    return new CatalogException(CatalogException.Kind.LOCATION_IN_USE, "Cannot " + action + " table " + table
        + ": its location '" + location + "' holds the metadata of another table (" + file + ", table-uuid "
        + otherUuid + "; this table's uuid is " + ownUuid + "). Running it would delete that table's files; "
        + "nothing was deleted. Move this table's data to a location of its own (CREATE TABLE ... AS SELECT into "
        + "a new table), then DROP TABLE " + table + " without PURGE",
        params("table", table, "location", location, "file", file), null);
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
