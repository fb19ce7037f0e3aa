package io.floe.format.metadata;

import java.util.UUID;

/** New snapshot ids: positive longs folded from a random UUID, as the reference implementation does. */
public final class SnapshotIdGenerator {
  private SnapshotIdGenerator() {}

  public static long newSnapshotId() {
    while (true) {
      UUID uuid = UUID.randomUUID();
      long id = (uuid.getMostSignificantBits() ^ uuid.getLeastSignificantBits()) & Long.MAX_VALUE;
      if (id != 0) {
        return id;
      }
    }
  }
}
