package io.floe.format.index;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.types.Type;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges segments in the data commit that adds one (docs/indexes.md, "Merging segments"), as a
 * commit merges manifests: once an index holds {@code floe.index.min-segments-to-merge} segments,
 * its smallest ones that fit {@link IndexSegmentMerger.Limits} become one, and the data files the
 * new snapshot no longer lists drop out of coverage. Only the merged segments and the snapshot's
 * data manifests (one at a time) are read. A merge that fails is logged and left out: the index
 * keeps its segments and the data still commits.
 */
final class IndexCommitMerge {
  private static final System.Logger LOG = System.getLogger(IndexCommitMerge.class.getName());

  private final FileIO io;
  private final String table;
  private final String metadataFolder;
  private final IndexSegmentMerger.Limits limits;

  /** The segments picked for one index and their open readers. */
  private record Plan(TableIndex index, Type keyType, List<IndexSegment> picked, List<IndexSegmentReader> readers) {
  }

  IndexCommitMerge(FileIO io, String table, String metadataFolder, IndexSegmentMerger.Limits limits) {
    this.io = io;
    this.table = table;
    this.metadataFolder = metadataFolder;
    this.limits = limits;
  }

  /**
   * {@code list} with the segments of the indexes named {@code names} merged where they are due, in
   * the commit of {@code snapshot} ({@code updated} holds it); adds the files it writes to {@code written}.
   */
  IndexList apply(IndexList list, Collection<String> names, TableMetadata updated, Snapshot snapshot,
      List<String> written) {
    int minSegments;
    try {
      minSegments = TableProperties.intValue(updated.properties(), TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE);
    } catch (RuntimeException e) {
      warn("any index", snapshot, e);
      return list;
    }
    Map<String, Plan> plans = new LinkedHashMap<>();
    Set<String> candidates = new HashSet<>();
    for (String name : names) {
      try {
        TableIndex index = list.index(name);
        Type keyType = index == null ? null : updated.schema().findType(index.sourceFieldId());
        List<IndexSegment> picked = keyType == null ? List.of()
            : IndexSegmentMerger.segmentsToMerge(index, minSegments, limits);
        if (picked.isEmpty()) {
          continue;
        }
        List<IndexSegmentReader> readers = new ArrayList<>();
        for (IndexSegment segment : picked) {
          IndexSegmentReader reader = IndexSegmentReader.open(table, index, segment, keyType,
              io.newInputFile(segment.path()));
          candidates.addAll(reader.coveredFiles().paths());
          readers.add(reader);
        }
        plans.put(name, new Plan(index, keyType, picked, readers));
      } catch (RuntimeException e) {
        warn(name, snapshot, e);
      }
    }
    if (plans.isEmpty()) {
      return list;
    }
    Set<String> live;
    try {
      live = IndexLiveFiles.among(io, updated, snapshot, candidates);
    } catch (RuntimeException e) {
      warn(String.join(", ", plans.keySet()), snapshot, e);
      return list;
    }
    IndexList.Builder next = IndexList.buildFrom(list);
    for (Plan plan : plans.values()) {
      String location = null;
      try {
        TableIndex.Builder merged = TableIndex.buildFrom(plan.index());
        if (plan.readers().stream().noneMatch(r -> r.coveredFiles().paths().stream().anyMatch(live::contains))) {
          merged.removeSegments(plan.picked()); // they cover only files the snapshot no longer lists
        } else {
          IndexSegmentWriter writer = IndexSegmentWriter.builder(plan.index().type(), plan.index().sourceFieldId(),
              plan.keyType()).snapshot(snapshot.snapshotId(), snapshot.sequenceNumber()).build();
          location = IndexLocations.newSegment(metadataFolder, plan.index().name());
          IndexSegment segment = IndexSegmentMerger.merge(plan.readers(), live, writer, io.newOutputFile(location));
          written.add(location);
          merged.replaceSegments(plan.picked(), segment);
        }
        next.replace(merged.build());
      } catch (RuntimeException e) {
        if (location != null && !written.contains(location)) {
          deleteQuietly(location);
        }
        warn(plan.index().name(), snapshot, e);
      }
    }
    return next.build();
  }

  private void warn(String index, Snapshot snapshot, RuntimeException e) {
    LOG.log(System.Logger.Level.WARNING, "Cannot merge the segments of index " + index + " on table " + table
        + " in the commit of snapshot " + snapshot.snapshotId() + "; the data commits with the segments unmerged "
        + "(CALL system.rewrite_index merges them): " + e, e);
  }

  private void deleteQuietly(String location) {
    try {
      io.deleteFile(location);
    } catch (IOException | RuntimeException ignored) {
      // an unreferenced file in the hidden index folder: removed by expire_snapshots
    }
  }
}
