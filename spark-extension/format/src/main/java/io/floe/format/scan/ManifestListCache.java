package io.floe.format.scan;

import io.floe.format.manifest.ManifestFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.util.WeightedCache;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The manifests of snapshots already planned, so that the next query on an unchanged table decodes
 * no manifest list (with thousands of manifests, decoding the list is most of a warm plan).
 *
 * <p>A manifest list is written once, under a name of its own, by the commit that creates its
 * snapshot, and never changed: its manifests are identified by the list's path with the snapshot's
 * id and sequence number (a table dropped and re-created at the same location has new snapshot
 * ids). The decoded {@link ManifestFile}s are immutable and shared; readers of their partition
 * summaries' buffers duplicate them. Least recently used lists are dropped beyond
 * {@code maxWeight} (an estimate of their heap), and a list unused for {@link #IDLE_NANOS} is
 * dropped at the next access, as {@link ManifestCache} drops manifests. Thread-safe.
 */
public final class ManifestListCache {
  /** Estimated heap per decoded manifest: path, counts, partition summaries. */
  static final long MANIFEST_WEIGHT = 1024;

  /** A list unused this long is dropped. */
  public static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final ManifestListCache SHARED = new ManifestListCache(Runtime.getRuntime().maxMemory() / 64);

  private record Key(String path, long snapshotId, long sequenceNumber) {}

  private final WeightedCache<Key, List<ManifestFile>> cache;

  public ManifestListCache(long maxWeight) {
    this(maxWeight, System::nanoTime);
  }

  /** A cache whose idle expiry reads {@code clock} (nanoseconds, as {@link System#nanoTime}). */
  public ManifestListCache(long maxWeight, LongSupplier clock) {
    if (maxWeight < 0) {
      throw new IllegalArgumentException("Invalid manifest list cache size: " + maxWeight + " bytes");
    }
    this.cache = new WeightedCache<>(maxWeight, IDLE_NANOS, clock);
  }

  /** The cache planning uses in this JVM. */
  public static ManifestListCache shared() {
    return SHARED;
  }

  /** The manifests of {@code snapshot}: the kept ones, or those {@code read} returns (then kept). */
  public List<ManifestFile> manifests(Snapshot snapshot, Supplier<List<ManifestFile>> read) {
    Key key = new Key(snapshot.manifestListLocation(), snapshot.snapshotId(), snapshot.sequenceNumber());
    return cache.get(key, () -> List.copyOf(read.get()), manifests -> manifests.size() * MANIFEST_WEIGHT);
  }

  public void clear() {
    cache.clear();
  }

  public long hits() {
    return cache.hits();
  }

  public long misses() {
    return cache.misses();
  }
}
