package io.floe.format.maintenance;

/**
 * How many files of each kind an expiry deleted (a file already gone counts as deleted), and how
 * many deletes failed (logged, not fatal: the files stay behind as orphans).
 */
public record DeletionCounts(long dataFiles, long positionDeleteFiles, long equalityDeleteFiles, long manifests,
    long manifestLists, long statisticsFiles, long failures) {
  public static final DeletionCounts NONE = new DeletionCounts(0, 0, 0, 0, 0, 0, 0);

  /** Files deleted, all kinds together (failures not included). */
  public long deleted() {
    return dataFiles + positionDeleteFiles + equalityDeleteFiles + manifests + manifestLists + statisticsFiles;
  }
}
