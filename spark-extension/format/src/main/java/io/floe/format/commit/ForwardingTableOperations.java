package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.TableMetadata;

/**
 * Table operations that delegate every call to another {@link TableOperations}; a wrapper extends it
 * and overrides only what it changes (typically {@link #commit}, to check or pause before publishing).
 */
public class ForwardingTableOperations implements TableOperations {
  private final TableOperations delegate;

  public ForwardingTableOperations(TableOperations delegate) {
    this.delegate = delegate;
  }

  /** The operations every call goes to. */
  protected final TableOperations delegate() {
    return delegate;
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

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }
}
