package io.floe.testing;

import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.ForwardingTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.metadata.TableMetadata;
import java.util.concurrent.atomic.AtomicInteger;

/** Table operations that count the commits lost to another writer (each one a retry, or a give-up). */
final class RaceCountingOperations extends ForwardingTableOperations {
  private final AtomicInteger lostRaces;

  RaceCountingOperations(TableOperations delegate, AtomicInteger lostRaces) {
    super(delegate);
    this.lostRaces = lostRaces;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata updated) {
    try {
      super.commit(base, updated);
    } catch (CommitFailedException e) {
      lostRaces.incrementAndGet();
      throw e;
    }
  }
}
