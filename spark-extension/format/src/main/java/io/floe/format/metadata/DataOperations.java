package io.floe.format.metadata;

/** The snapshot {@code operation} values the spec allows (other readers reject anything else). */
public final class DataOperations {
  private DataOperations() {}

  /** Only data files were added. */
  public static final String APPEND = "append";
  /** Files were added and removed without changing the table's rows (compaction, manifest rewrite). */
  public static final String REPLACE = "replace";
  /** Rows were logically overwritten: data files removed and added, or data plus delete files added. */
  public static final String OVERWRITE = "overwrite";
  /** Data files were removed and/or delete files were added. */
  public static final String DELETE = "delete";
}
