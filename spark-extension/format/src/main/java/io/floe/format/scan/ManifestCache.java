package io.floe.format.scan;

import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.util.WeightedCache;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The live entries of manifests already read, so that planning a snapshot again (the next query on
 * an unchanged table, or on a table that only gained manifests) decodes no manifest twice.
 *
 * <p>A manifest file is never rewritten in place (a table change writes new manifests under new
 * names), so a manifest is identified by its path and length. The key also holds everything the
 * decoded entries depend on besides the file: what the manifest list says about it (inherited
 * snapshot id, sequence numbers, first row id, content) and the partition type of the spec it is
 * read with. Entries are immutable and shared.
 *
 * <p>Least recently used manifests are dropped beyond {@code maxWeight}, an estimate of the heap the
 * decoded entries take ({@link #weight}); {@link #shared()} allows an eighth of the JVM's maximum
 * heap. A manifest no planning used for {@link #IDLE_NANOS} (a minute, as Iceberg's manifest cache)
 * is dropped too: a table that keeps changing replaces its manifests, and a long-running driver
 * would otherwise fill the cache with manifests no current snapshot lists. Thread-safe; two threads
 * that miss the same manifest at once both decode it.
 */
public final class ManifestCache {
  /** Estimated heap per decoded entry beyond its manifest bytes (objects, maps, boxed counts). */
  static final long ENTRY_OVERHEAD = 1024;
  /** Decoded entries take several times the bytes of their compressed Avro. */
  static final long BYTES_FACTOR = 4;

  /** A manifest unused this long is dropped. */
  public static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final ManifestCache SHARED = new ManifestCache(Runtime.getRuntime().maxMemory() / 8);

  private record Key(String path, long length, ManifestContent content, Long snapshotId, long sequenceNumber,
      long minSequenceNumber, Long firstRowId, int specId, String partitionType) {}

  private final WeightedCache<Key, List<? extends ManifestEntry<?>>> cache;

  public ManifestCache(long maxWeight) {
    this(maxWeight, System::nanoTime);
  }

  /** A cache whose idle expiry reads {@code clock} (nanoseconds, as {@link System#nanoTime}). */
  public ManifestCache(long maxWeight, LongSupplier clock) {
    if (maxWeight < 0) {
      throw new IllegalArgumentException("Invalid manifest cache size: " + maxWeight + " bytes");
    }
    this.cache = new WeightedCache<>(maxWeight, IDLE_NANOS, clock);
  }

  /** The cache planning uses in this JVM. */
  public static ManifestCache shared() {
    return SHARED;
  }

  /**
   * The live entries of {@code manifest} read with {@code spec}: the kept ones, or those {@code read}
   * returns (then kept).
   */
  @SuppressWarnings("unchecked")
  public <F extends ContentFile> List<ManifestEntry<F>> liveEntries(ManifestFile manifest, PartitionSpec spec,
      Supplier<List<ManifestEntry<F>>> read) {
    Key key = new Key(manifest.path(), manifest.length(), manifest.content(), manifest.snapshotId(),
        manifest.sequenceNumber(), manifest.minSequenceNumber(), manifest.firstRowId(), spec.specId(),
        spec.partitionType().toString());
    return (List<ManifestEntry<F>>) cache.get(key, () -> List.copyOf(read.get()),
        entries -> weight(manifest, entries.size()));
  }

  /** The estimated heap taken by {@code entries} decoded entries of {@code manifest}. */
  static long weight(ManifestFile manifest, int entries) {
    return manifest.length() * BYTES_FACTOR + entries * ENTRY_OVERHEAD;
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

  public int size() {
    return cache.size();
  }

  public long weight() {
    return cache.weight();
  }
}
