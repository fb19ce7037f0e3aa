package io.floe.format.commit;

import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;

/**
 * A further change a {@link SnapshotProducer} puts into the same metadata commit as its snapshot,
 * applied again at every attempt (so a retry re-applies it to the newer base). It must not throw:
 * a change it cannot make is left out, and the snapshot commits without it.
 */
@FunctionalInterface
public interface MetadataAmendment {
  /** {@code updated} (built on {@code base}, adding {@code snapshot}) with this change, or {@code updated} itself. */
  TableMetadata amend(TableMetadata base, TableMetadata updated, Snapshot snapshot);
}
