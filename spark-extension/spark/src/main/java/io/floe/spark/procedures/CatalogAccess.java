package io.floe.spark.procedures;

import io.floe.format.catalog.FileSystemCatalog;

/**
 * What a procedure needs of the catalog it is called through: the catalog's name (to resolve
 * {@code table} arguments and to name tables in messages) and the format-level catalog (to load,
 * commit and register tables). The Spark catalog implements it; procedures never see more of it.
 */
public interface CatalogAccess {
  /** The name the catalog is registered under in the session ({@code spark.sql.catalog.<name>}). */
  String name();

  FileSystemCatalog formatCatalog();
}
