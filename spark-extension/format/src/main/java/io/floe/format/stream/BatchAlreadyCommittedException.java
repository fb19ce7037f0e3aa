package io.floe.format.stream;

/**
 * Thrown by the operations {@link StreamingCommits#guard} returns when a commit attempt finds that its
 * micro-batch already committed (another run of the same query won the race). Nothing was published;
 * the sink treats the batch as done and removes the data files it wrote for it.
 */
public final class BatchAlreadyCommittedException extends RuntimeException {
  private final String queryId;
  private final long batchId;

  public BatchAlreadyCommittedException(String table, String queryId, long batchId) {
    super("Skipping batch " + batchId + " of streaming query " + queryId + " on table " + table
        + ": it has already committed");
    this.queryId = queryId;
    this.batchId = batchId;
  }

  public String queryId() {
    return queryId;
  }

  public long batchId() {
    return batchId;
  }
}
