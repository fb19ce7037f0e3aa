package io.floe.format.metadata;

/** One {@code snapshot-log} entry: when {@code snapshotId} became the current snapshot of main. */
public record SnapshotLogEntry(long timestampMillis, long snapshotId) {}
