package io.floe.spark.index;

import io.floe.format.index.IndexSegment;
import io.floe.format.io.FileIO;
import java.io.IOException;
import java.util.List;

/** Removes segment files that no committed index list names (a build or rewrite that failed cleanly). */
final class IndexFiles {
  private IndexFiles() {}

  static void deleteQuietly(FileIO io, List<IndexSegment> segments) {
    for (IndexSegment segment : segments) {
      try {
        io.deleteFile(segment.path());
      } catch (IOException | RuntimeException e) {
        // left in the hidden index folder; no index list names it, so no reader opens it
      }
    }
  }
}
