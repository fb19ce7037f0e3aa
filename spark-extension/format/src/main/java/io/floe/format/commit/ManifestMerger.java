package io.floe.format.commit;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestWriter;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Keeps the number of data manifests bounded on append, as Iceberg's merge append does. The data
 * manifests of each partition spec, in list order (the commit's new manifests first, then the
 * parent's), are packed from the end into bins of at most {@code commit.manifest.target-size-bytes}
 * without reordering them, so that only the newest bin is under-filled. A bin of one manifest is
 * kept; so is the newest bin while it holds fewer than {@code commit.manifest.min-count-to-merge}
 * manifests; every other bin is merged into one manifest. Delete manifests are never merged.
 */
final class ManifestMerger {
  static final String ENABLED = TableProperties.MANIFEST_MERGE_ENABLED;
  static final boolean ENABLED_DEFAULT = TableProperties.MANIFEST_MERGE_ENABLED_DEFAULT;
  static final String MIN_COUNT_TO_MERGE = TableProperties.MANIFEST_MIN_MERGE_COUNT;
  static final int MIN_COUNT_TO_MERGE_DEFAULT = TableProperties.MANIFEST_MIN_MERGE_COUNT_DEFAULT;

  private final long targetBytes;
  private final int minCountToMerge;

  private ManifestMerger(long targetBytes, int minCountToMerge) {
    this.targetBytes = targetBytes;
    this.minCountToMerge = minCountToMerge;
  }

  /** The merger configured by the table's properties, or null when merging is disabled. */
  static ManifestMerger from(TableMetadata base, String tableName) {
    Map<String, String> props = base.properties();
    String enabled = props.get(ENABLED);
    if (enabled != null && !Boolean.parseBoolean(enabled.trim())) {
      return null;
    }
    long target = RewriteManifests.targetBytes(base, tableName);
    String minCount = props.get(MIN_COUNT_TO_MERGE);
    int min = MIN_COUNT_TO_MERGE_DEFAULT;
    if (minCount != null) {
      try {
        min = Integer.parseInt(minCount.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Cannot commit to table " + tableName + ": table property "
            + MIN_COUNT_TO_MERGE + " is '" + minCount + "', expected a whole number", e);
      }
    }
    return new ManifestMerger(target, Math.max(min, 2));
  }

  /**
   * {@code manifests} (new ones first) with the bins that need it replaced by {@code mergeBin}'s
   * result: data manifests grouped by spec in order of first appearance, then the delete manifests.
   */
  List<ManifestFile> merge(List<ManifestFile> manifests, Function<List<ManifestFile>, ManifestFile> mergeBin) {
    Map<Integer, List<ManifestFile>> dataBySpec = new LinkedHashMap<>();
    List<ManifestFile> deletes = new ArrayList<>();
    for (ManifestFile m : manifests) {
      if (m.content() == ManifestContent.DATA) {
        dataBySpec.computeIfAbsent(m.partitionSpecId(), k -> new ArrayList<>()).add(m);
      } else {
        deletes.add(m);
      }
    }
    List<ManifestFile> out = new ArrayList<>();
    for (List<ManifestFile> group : dataBySpec.values()) {
      ManifestFile newest = group.get(0);
      for (List<ManifestFile> bin : packFromEnd(group, targetBytes)) {
        if (bin.size() == 1 || (bin.get(0) == newest && bin.size() < minCountToMerge)) {
          out.addAll(bin);
        } else {
          out.add(mergeBin.apply(bin));
        }
      }
    }
    out.addAll(deletes);
    return out;
  }

  /**
   * Writes the entries of {@code bin} to {@code writer}: the committing snapshot's own ADDED (and
   * DELETED) entries as they are, every other live entry as EXISTING with its snapshot id and
   * sequence numbers; entries that older snapshots deleted are dropped (they stay in those
   * snapshots' own manifests).
   */
  static void writeEntries(List<ManifestFile> bin, long snapshotId, ManifestWriter writer,
      Function<ManifestFile, List<ManifestEntry<DataFile>>> read) {
    for (ManifestFile manifest : bin) {
      for (ManifestEntry<DataFile> e : read.apply(manifest)) {
        boolean ours = e.snapshotId() != null && e.snapshotId() == snapshotId;
        if (e.status() == ManifestEntry.Status.ADDED && ours) {
          if (e.dataSequenceNumber() != null) {
            writer.add(e.file(), e.dataSequenceNumber());
          } else {
            writer.add(e.file());
          }
        } else if (e.status() == ManifestEntry.Status.DELETED) {
          if (ours) {
            writer.delete(e);
          }
        } else {
          writer.existing(e);
        }
      }
    }
  }

  /**
   * Consecutive runs of {@code items} of at most {@code target} bytes each (a larger manifest alone),
   * filled from the end so that the first run is the one left short; order is kept.
   */
  static List<List<ManifestFile>> packFromEnd(List<ManifestFile> items, long target) {
    List<List<ManifestFile>> bins = new ArrayList<>();
    List<ManifestFile> bin = new ArrayList<>();
    long weight = 0;
    for (int i = items.size() - 1; i >= 0; i--) {
      ManifestFile m = items.get(i);
      if (!bin.isEmpty() && weight + m.length() > target) {
        Collections.reverse(bin);
        bins.add(bin);
        bin = new ArrayList<>();
        weight = 0;
      }
      bin.add(m);
      weight += m.length();
    }
    if (!bin.isEmpty()) {
      Collections.reverse(bin);
      bins.add(bin);
    }
    Collections.reverse(bins);
    return bins;
  }
}
