package io.floe.format.commit;

import io.floe.format.expr.Comparators;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.partition.PartitionData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How rewrite_manifests groups one partition spec's live entries: ordered by partition tuple (nulls
 * first, then the data file path), cut into consecutive runs of near-equal length, so that each new
 * manifest covers a narrow partition range and its partition summary prunes well. Also tells whether
 * a spec's manifests already are such runs, in which case there is nothing to rewrite.
 */
final class ManifestClustering {
  /** The order entries are written in: partition tuple, then file path. */
  static final Comparator<ManifestEntry<DataFile>> ORDER = Comparator
      .comparing((ManifestEntry<DataFile> e) -> e.file().partition(), ManifestClustering::comparePartitions)
      .thenComparing(e -> e.file().path());

  private ManifestClustering() {}

  /** How many manifests {@code totalBytes} of manifests become at {@code targetBytes} each (at least one). */
  static int manifestCount(long totalBytes, long targetBytes, int entries) {
    long count = Math.max(1L, (totalBytes + targetBytes - 1) / targetBytes);
    return (int) Math.max(1L, Math.min(count, Math.max(1, entries)));
  }

  /** {@code sorted} (in {@link #ORDER}) cut into {@code groups} consecutive runs whose lengths differ by at most one. */
  static List<List<ManifestEntry<DataFile>>> split(List<ManifestEntry<DataFile>> sorted, int groups) {
    List<List<ManifestEntry<DataFile>>> out = new ArrayList<>();
    int n = sorted.size();
    int start = 0;
    for (int g = 0; g < groups && start < n; g++) {
      int end = start + (n - start + (groups - g) - 1) / (groups - g);
      out.add(new ArrayList<>(sorted.subList(start, end)));
      start = end;
    }
    return out;
  }

  /**
   * Whether the manifests (live entries by manifest path) need no rewrite: none is empty or carries
   * deleted entries, each is one contiguous run of the sorted order, and merging them would not pay:
   * there are at most {@code groups} of them, or, when the target is more than one manifest, at most
   * twice that (merging contiguous manifests is worth a commit only when it at least halves their
   * number or brings them down to one; this also keeps a rewrite's own output stable, as it comes
   * out smaller than estimated by the per-file overhead it saved).
   */
  static boolean isClustered(Map<String, List<ManifestEntry<DataFile>>> liveByManifest, Set<String> manifestsWithDeletes,
      int groups) {
    int count = liveByManifest.size();
    boolean fewEnough = count <= groups || (groups > 1 && count <= 2 * groups);
    if (!fewEnough || !manifestsWithDeletes.isEmpty()) {
      return false;
    }
    List<ManifestEntry<DataFile>> all = new ArrayList<>();
    Map<ManifestEntry<DataFile>, String> owner = new HashMap<>();
    for (Map.Entry<String, List<ManifestEntry<DataFile>>> m : liveByManifest.entrySet()) {
      if (m.getValue().isEmpty()) {
        return false;
      }
      for (ManifestEntry<DataFile> e : m.getValue()) {
        all.add(e);
        owner.put(e, m.getKey());
      }
    }
    all.sort(ORDER);
    Set<String> seen = new HashSet<>();
    String previous = null;
    for (ManifestEntry<DataFile> e : all) {
      String manifest = owner.get(e);
      if (!manifest.equals(previous) && !seen.add(manifest)) {
        return false;
      }
      previous = manifest;
    }
    return true;
  }

  private static int comparePartitions(PartitionData left, PartitionData right) {
    int n = Math.min(left.size(), right.size());
    for (int i = 0; i < n; i++) {
      int cmp = compareValues(left.get(i), right.get(i));
      if (cmp != 0) {
        return cmp;
      }
    }
    return Integer.compare(left.size(), right.size());
  }

  private static int compareValues(Object left, Object right) {
    if (left == null || right == null) {
      return left == null ? (right == null ? 0 : -1) : 1;
    }
    return Comparators.compare(left, right);
  }
}
