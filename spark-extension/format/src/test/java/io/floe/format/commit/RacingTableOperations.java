package io.floe.format.commit;

import io.floe.format.metadata.TableMetadata;

/** Test table operations that let another writer commit first, to test lost races. */
public final class RacingTableOperations {
  private RacingTableOperations() {}

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
}
