package io.floe.format.util;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * A thread-safe cache of immutable values decoded from immutable files, bounded by an estimate of
 * the heap they take: the least recently used values are dropped beyond {@code maxWeight}, and a
 * value unused for {@code idleNanos} is dropped at the next access (a long-running driver would
 * otherwise keep the decoded parts of files no current snapshot lists). A value heavier than the
 * whole cache is returned without being kept. Two threads that miss the same key at once both load
 * it. Used for decoded manifests ({@code ManifestCache}) and index pages ({@code IndexSegmentReader}).
 *
 * @param <K> the key: everything the decoded value depends on (a file's path and length, ...)
 * @param <V> the decoded value, never modified once loaded
 */
public final class WeightedCache<K, V> {
  /** A value and when it was last used ({@link #clock} nanoseconds). */
  private static final class Kept<V> {
    final V value;
    final long weight;
    long lastUsed;

    Kept(V value, long weight, long lastUsed) {
      this.value = value;
      this.weight = weight;
      this.lastUsed = lastUsed;
    }
  }

  private final long maxWeight;
  private final long idleNanos;
  private final LongSupplier clock;
  private final Map<K, Kept<V>> kept = new LinkedHashMap<>(64, 0.75f, true);
  private long weight = 0;
  private long hits = 0;
  private long misses = 0;

  /**
   * A cache of at most {@code maxWeight} (estimated bytes), dropping values unused for
   * {@code idleNanos} as measured by {@code clock} (nanoseconds, as {@link System#nanoTime}).
   */
  public WeightedCache(long maxWeight, long idleNanos, LongSupplier clock) {
    if (maxWeight < 0 || idleNanos <= 0) {
      throw new IllegalArgumentException("Invalid cache bounds: " + maxWeight + " bytes, idle after "
          + idleNanos + " ns");
    }
    this.maxWeight = maxWeight;
    this.idleNanos = idleNanos;
    this.clock = clock;
  }

  /** The kept value of {@code key}, or the one {@code load} returns (then kept, weighing {@code weigher} of it). */
  public V get(K key, Supplier<? extends V> load, ToLongFunction<? super V> weigher) {
    synchronized (this) {
      long now = clock.getAsLong();
      dropIdle(now);
      Kept<V> k = kept.get(key);
      if (k != null) {
        hits++;
        k.lastUsed = now;
        return k.value;
      }
      misses++;
    }
    V value = load.get();
    long w = weigher.applyAsLong(value);
    synchronized (this) {
      if (w <= maxWeight) {
        Kept<V> old = kept.put(key, new Kept<>(value, w, clock.getAsLong()));
        weight += w - (old == null ? 0 : old.weight);
        Iterator<Kept<V>> eldest = kept.values().iterator();
        while (weight > maxWeight && eldest.hasNext()) {
          weight -= eldest.next().weight;
          eldest.remove();
        }
      }
    }
    return value;
  }

  /** Drops the values unused for {@link #idleNanos}: the least recently used come first. */
  private void dropIdle(long now) {
    Iterator<Kept<V>> eldest = kept.values().iterator();
    while (eldest.hasNext()) {
      Kept<V> k = eldest.next();
      if (now - k.lastUsed < idleNanos) {
        return;
      }
      weight -= k.weight;
      eldest.remove();
    }
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
