package io.floe.format.puffin;

/** File and blob property keys of the Puffin spec. */
public final class StandardPuffinProperties {
  private StandardPuffinProperties() {}

  /** File property: the application that wrote the file. */
  public static final String CREATED_BY = "created-by";

  /** Deletion-vector blob property: the exact {@code file_path} of the data file. */
  public static final String REFERENCED_DATA_FILE = "referenced-data-file";

  /** Deletion-vector blob property: the number of deleted positions, in decimal. */
  public static final String CARDINALITY = "cardinality";

  /** Theta-sketch blob property: the distinct-count estimate, in decimal. */
  public static final String NDV = "ndv";
}
