package io.floe.format.stream;

import io.floe.format.manifest.DataFile;
import io.floe.format.partition.PartitionSpec;

/**
 * One data file a streaming read takes: the {@code position}-th file of snapshot {@code snapshotId}
 * (its added files, or all its live files when the offset scans all files), with the spec it was
 * written with. Appended files are read without delete files, as Iceberg's source does: the stream
 * delivers rows as they were appended.
 */
public record AppendedFile(long snapshotId, long position, DataFile file, PartitionSpec spec,
    long dataSequenceNumber) {}
