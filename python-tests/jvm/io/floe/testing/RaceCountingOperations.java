package io.floe.testing;

import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.TableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.metadata.TableMetadata;
import java.util.concurrent.atomic.AtomicInteger;

/** Table operations that count the commits lost to another writer (each one a retry, or a give-up). */
final class RaceCountingOperations implements TableOperations {
  private final TableOperations delegate;
  private final AtomicInteger lostRaces;

  RaceCountingOperations(TableOperations delegate, AtomicInteger lostRaces) {
    this.delegate = delegate;
    this.lostRaces = lostRaces;
  }

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    return delegate.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata updated) {
    try {
      delegate.commit(base, updated);
    } catch (CommitFailedException e) {
      lostRaces.incrementAndGet();
      throw e;
    }
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public String tableName() {
    return delegate.tableName();
  }

  @Override
  public String metadataRoot() {
    return delegate.metadataRoot();
  }
}
