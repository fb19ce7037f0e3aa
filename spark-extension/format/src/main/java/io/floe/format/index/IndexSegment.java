package io.floe.format.index;

import java.util.Objects;

/**
 * One segment of an index as the index list records it: its Puffin file, how many data files it
 * covers and how many keys it holds, and the snapshot (id and sequence number) it was built at.
 * The snapshot is informational: entries are facts about immutable files, so a segment serves
 * every snapshot that lists a file it covers.
 */
public record IndexSegment(String path, long fileSizeInBytes, int coveredFileCount, long entryCount, long snapshotId,
    long sequenceNumber) {
  public IndexSegment {
    Objects.requireNonNull(path, "Segment path is null");
    if (fileSizeInBytes <= 0 || coveredFileCount < 0 || entryCount < 0) {
      throw new IllegalArgumentException("Invalid index segment " + path + ": file size " + fileSizeInBytes
          + ", covered files " + coveredFileCount + ", entries " + entryCount);
    }
  }
}
