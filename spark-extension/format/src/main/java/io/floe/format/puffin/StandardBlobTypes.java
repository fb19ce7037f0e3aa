package io.floe.format.puffin;

/** Blob types of the Puffin spec. */
public final class StandardBlobTypes {
  private StandardBlobTypes() {}

  /** A compact theta sketch (datasketches-java, default seed) of a column's values. */
  public static final String APACHE_DATASKETCHES_THETA_V1 = "apache-datasketches-theta-v1";

  /** A deletion vector: the deleted positions of one data file (see DeletionVector). */
  public static final String DV_V1 = "deletion-vector-v1";
}
