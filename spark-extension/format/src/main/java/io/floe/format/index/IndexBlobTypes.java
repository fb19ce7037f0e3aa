package io.floe.format.index;

/**
 * The Floe-only Puffin blob types of an index segment (docs/indexes.md). Other engines never read
 * segment files; Floe refuses a segment holding a blob type it does not know.
 */
public final class IndexBlobTypes {
  private IndexBlobTypes() {}

  /** The covered data file paths, in ordinal order ({@link CoveredFiles}). */
  public static final String FILES = "floe-index-files-v1";

  /** The page directory, null and non-null file bitmaps ({@link IndexDirectory}). */
  public static final String DIRECTORY = "floe-index-directory-v1";

  /** Every page, each compressed on its own, back to back ({@link IndexPage}). */
  public static final String PAGES = "floe-index-pages-v1";

  /** Segment file property: the index type ({@code inverted} or {@code btree}). */
  public static final String INDEX_TYPE_PROPERTY = "floe.index.type";

  /** Blob property: the key type the segment was written with, e.g. {@code decimal(10, 2)}. */
  public static final String KEY_TYPE_PROPERTY = "key-type";
}
