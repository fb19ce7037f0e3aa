package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.TableMetadata;

/**
 * Test table operations that delegate every call; tests override {@link #commit} to inject faults
 * (an unknown outcome) or use {@link #racing} to let another writer commit first.
 */
public class ForwardingTableOperations implements TableOperations {
  private final TableOperations delegate;

  public ForwardingTableOperations(TableOperations delegate) {
    this.delegate = delegate;
  }

  /** Runs {@code race} (another writer's commit) right before the first commit goes through. */
  public static TableOperations racing(TableOperations delegate, Runnable race) {
    return new ForwardingTableOperations(delegate) {
      private Runnable pending = race;

      @Override
      public void commit(TableMetadata base, TableMetadata updated) {
        if (pending != null) {
          Runnable r = pending;
          pending = null;
          r.run();
        }
        super.commit(base, updated);
      }
    };
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
    delegate.commit(base, updated);
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
