package io.floe.format.scan;

import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.partition.PartitionSpec;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  /** Decoded entries and when planning last used them ({@link #clock} nanoseconds). */
  private static final class Kept {
    final List<? extends ManifestEntry<?>> entries;
    final long weight;
    long lastUsed;

    Kept(List<? extends ManifestEntry<?>> entries, long weight, long lastUsed) {
      this.entries = entries;
      this.weight = weight;
      this.lastUsed = lastUsed;
    }
  }

  private final long maxWeight;
  private final LongSupplier clock;
  private final Map<Key, Kept> kept = new LinkedHashMap<>(64, 0.75f, true);
  private long weight = 0;
  private long hits = 0;
  private long misses = 0;

  public ManifestCache(long maxWeight) {
    this(maxWeight, System::nanoTime);
  }

  /** A cache whose idle expiry reads {@code clock} (nanoseconds, as {@link System#nanoTime}). */
  public ManifestCache(long maxWeight, LongSupplier clock) {
    if (maxWeight < 0) {
      throw new IllegalArgumentException("Invalid manifest cache size: " + maxWeight + " bytes");
    }
    this.maxWeight = maxWeight;
    this.clock = clock;
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
    synchronized (this) {
      long now = clock.getAsLong();
      dropIdle(now);
      Kept k = kept.get(key);
      if (k != null) {
        hits++;
        k.lastUsed = now;
        return (List<ManifestEntry<F>>) k.entries;
      }
      misses++;
    }
    List<ManifestEntry<F>> entries = List.copyOf(read.get());
    long w = weight(manifest, entries.size());
    synchronized (this) {
      if (w <= maxWeight) {
        Kept old = kept.put(key, new Kept(entries, w, clock.getAsLong()));
        weight += w - (old == null ? 0 : old.weight);
        Iterator<Kept> eldest = kept.values().iterator();
        while (weight > maxWeight && eldest.hasNext()) {
          weight -= eldest.next().weight;
          eldest.remove();
        }
      }
    }
    return entries;
  }

  /** Drops the manifests unused for {@link #IDLE_NANOS}: the least recently used come first. */
  private void dropIdle(long now) {
    Iterator<Kept> eldest = kept.values().iterator();
    while (eldest.hasNext()) {
      Kept k = eldest.next();
      if (now - k.lastUsed < IDLE_NANOS) {
        return;
      }
      weight -= k.weight;
      eldest.remove();
    }
  }

  /** The estimated heap taken by {@code entries} decoded entries of {@code manifest}. */
  static long weight(ManifestFile manifest, int entries) {
    return manifest.length() * BYTES_FACTOR + entries * ENTRY_OVERHEAD;
  }

  public synchronized void clear() {
    kept.clear();
    weight = 0;
  }

  public synchronized long hits() {
    return hits;
  }

  public synchronized long misses() {
    return misses;
  }

  public synchronized int size() {
    return kept.size();
  }

  public synchronized long weight() {
    return weight;
  }
}
