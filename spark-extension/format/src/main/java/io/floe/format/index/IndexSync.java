package io.floe.format.index;

import io.floe.format.commit.MetadataAmendment;
import io.floe.format.io.FileIO;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.types.Type;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps a table's {@code sync} indexes current in the commit that adds data files
 * (docs/indexes.md, "Keeping it current"): from the values the writers gathered per added file and
 * indexed field id, it writes one new segment per sync index and commits the new index list with
 * the snapshot. At every attempt it reads the index list of that attempt's base, so a retry adds
 * the segment to whatever indexes then exist (an index dropped meanwhile just loses it), and it
 * deletes the files of the previous, lost attempt. Deferred indexes are left to rewrite_index, and
 * so are files with no gathered values (they stay uncovered, read by every scan). Any failure is
 * logged and the snapshot commits without segments: a data commit never fails because of an index.
 * An index that reaches {@code floe.index.min-segments-to-merge} segments has its smallest ones
 * merged in the same commit ({@link IndexCommitMerge}); a merge that fails is left out.
 * <pre>
 *   producer.amendMetadata(new IndexSync(io, table, metadataFolder, Map.of(fieldId, List.of(fileValues))));
 * </pre>
 */
public final class IndexSync implements MetadataAmendment {
  private static final System.Logger LOG = System.getLogger(IndexSync.class.getName());

  private final FileIO io;
  private final String table;
  private final String metadataFolder;
  private final Map<Integer, List<FileValues>> valuesByField;
  private final IndexSegmentMerger.Limits mergeLimits;
  private final List<String> written = new ArrayList<>();

  /** {@code valuesByField}: per indexed field id, the values of each added file that has them. */
  public IndexSync(FileIO io, String table, String metadataFolder, Map<Integer, List<FileValues>> valuesByField) {
    this(io, table, metadataFolder, valuesByField, IndexSegmentMerger.Limits.DEFAULT);
  }

  /** As above, merging at most {@code mergeLimits} at a time. */
  public IndexSync(FileIO io, String table, String metadataFolder, Map<Integer, List<FileValues>> valuesByField,
      IndexSegmentMerger.Limits mergeLimits) {
    this.io = Objects.requireNonNull(io, "FileIO is null");
    this.table = Objects.requireNonNull(table, "Table name is null");
    this.metadataFolder = Objects.requireNonNull(metadataFolder, "Metadata folder is null");
    this.valuesByField = Map.copyOf(valuesByField);
    this.mergeLimits = Objects.requireNonNull(mergeLimits, "Merge limits are null");
  }

  @Override
  public TableMetadata amend(TableMetadata base, TableMetadata updated, Snapshot snapshot) {
    deleteWritten(); // a previous attempt lost its race: its segments and list are unreferenced
    if (valuesByField.isEmpty()) {
      return updated;
    }
    try {
      IndexList current = IndexListFiles.read(io, table, base.properties());
      List<String> grown = new ArrayList<>();
      IndexList next = withSegments(current, updated, snapshot, grown);
      next = new IndexCommitMerge(io, table, metadataFolder, mergeLimits).apply(next, grown, updated, snapshot,
          written);
      if (next.equals(current)) {
        return updated;
      }
      String location = IndexListFiles.write(io, metadataFolder, next);
      written.add(location);
      return TableMetadata.buildFrom(updated).setProperties(Map.of(TableProperties.INDEXES, location)).build();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Cannot update the indexes of table " + table + " in commit of snapshot "
          + snapshot.snapshotId() + "; the data commits without index segments, its new files stay uncovered "
          + "until CALL system.rewrite_index: " + e, e);
      deleteWritten();
      return updated;
    }
  }

  /** {@code current} with a new segment for each sync index that has values; adds their names to {@code grown}. */
  private IndexList withSegments(IndexList current, TableMetadata updated, Snapshot snapshot, List<String> grown) {
    IndexList.Builder next = IndexList.buildFrom(current);
    for (TableIndex index : current.indexes()) {
      List<FileValues> files = valuesByField.get(index.sourceFieldId());
      Type keyType = updated.schema().findType(index.sourceFieldId());
      if (index.isDeferred() || files == null || files.isEmpty() || keyType == null) {
        continue;
      }
      IndexSegmentWriter writer = IndexSegmentWriter.builder(index.type(), index.sourceFieldId(), keyType)
          .snapshot(snapshot.snapshotId(), snapshot.sequenceNumber()).build();
      files.forEach(writer::add);
      String location = IndexLocations.newSegment(metadataFolder, index.name());
      written.add(location);
      IndexSegment segment = writer.write(io.newOutputFile(location));
      next.replace(TableIndex.buildFrom(index).addSegment(segment).build());
      grown.add(index.name());
    }
    return next.build();
  }

  private void deleteWritten() {
    for (String location : written) {
      try {
        io.deleteFile(location);
      } catch (IOException | RuntimeException e) {
        // an unreferenced file in the hidden index folder: harmless, removed by expire_snapshots
      }
    }
    written.clear();
  }
}
