package io.floe.format.stream;

import io.floe.format.commit.ForwardingTableOperations;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.commit.TableOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;

/**
 * Exactly-once bookkeeping of a streaming sink, with Iceberg's summary keys so that either engine's
 * sink recognises the other's batches: each micro-batch's snapshot records the query id and the
 * batch (epoch) id; before committing batch N a sink asks {@link #isCommitted}, which walks the
 * current snapshot's ancestry to the newest snapshot of the query (as Iceberg's
 * {@code findLastCommittedEpochId} does). Batch ids of one query only grow, so a batch at or below
 * that snapshot's id has committed. {@link #guard} repeats the check at every commit attempt, so
 * that a retry after a lost race does not publish a batch another run of the query committed.
 */
public final class StreamingCommits {
  /** The summary key of the streaming query's id (Spark's {@code StreamingQuery.id}, stable across restarts). */
  public static final String QUERY_ID = "spark.sql.streaming.queryId";
  /** The summary key of the micro-batch (epoch) id. */
  public static final String EPOCH_ID = "spark.sql.streaming.epochId";

  private StreamingCommits() {}

  /** Records {@code queryId} and {@code batchId} in the summary of the snapshot {@code update} commits. */
  public static <T extends SnapshotProducer> T record(T update, String queryId, long batchId) {
    if (queryId == null || queryId.isEmpty() || batchId < 0) {
      throw new IllegalArgumentException("Invalid streaming batch: query " + queryId + ", batch " + batchId);
    }
    update.set(QUERY_ID, queryId);
    update.set(EPOCH_ID, Long.toString(batchId));
    return update;
  }

  /**
   * The id of the last batch of {@code queryId} committed to the current branch, or null when none
   * is found among the ancestors that still exist.
   */
  public static Long lastCommittedBatch(TableMetadata metadata, String queryId) {
    Snapshot s = metadata.currentSnapshot();
    while (s != null) {
      if (queryId.equals(s.summary().get(QUERY_ID))) {
        String epoch = s.summary().get(EPOCH_ID);
        try {
          return epoch == null ? null : Long.parseLong(epoch);
        } catch (NumberFormatException e) {
          throw new IllegalStateException("Invalid snapshot " + s.snapshotId() + ": summary " + EPOCH_ID + " '"
              + epoch + "' is not a batch id", e);
        }
      }
      s = s.parentId() == null ? null : metadata.snapshot(s.parentId());
    }
    return null;
  }

  /**
   * {@code ops} that refuse to publish once batch {@code batchId} of {@code queryId} has committed:
   * every commit attempt (the first and each retry on a newer base) checks its base first and throws
   * {@link BatchAlreadyCommittedException} instead of publishing the batch a second time. A sink
   * commits its batch's {@link SnapshotProducer} through these operations.
   */
  public static TableOperations guard(TableOperations ops, String queryId, long batchId) {
    return new ForwardingTableOperations(ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata updated) {
        if (isCommitted(base, queryId, batchId)) {
          throw new BatchAlreadyCommittedException(ops.tableName(), queryId, batchId);
        }
        super.commit(base, updated);
      }
    };
  }

  /** Whether batch {@code batchId} of {@code queryId} has already committed (a restarted sink then skips it). */
  public static boolean isCommitted(TableMetadata metadata, String queryId, long batchId) {
    Long last = lastCommittedBatch(metadata, queryId);
    return last != null && batchId <= last;
  }
}
