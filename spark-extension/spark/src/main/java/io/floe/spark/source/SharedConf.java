package io.floe.spark.source;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The last broadcast of the session's Hadoop configuration, reused by the next read while the
 * configuration's entries are the same. Serializing a configuration (about a thousand entries) and
 * writing its broadcast blocks cost several milliseconds, a large part of a query that reads one
 * file or none; comparing the entries costs a small fraction of that. A change of any entry (a
 * {@code spark.hadoop.*} setting, credentials, a different Spark context) broadcasts anew, and the
 * replaced broadcast is left to Spark's context cleaner once no reader holds it. Thread-safe.
 *
 * @param <C> the owner the broadcast belongs to (a Spark context), held weakly
 * @param <B> the broadcast
 */
final class SharedConf<C, B> {
  private WeakReference<C> owner = new WeakReference<>(null);
  private Map<String, String> entries = null;
  private B value = null;

  /**
   * The broadcast of {@code entries} for {@code owner}: the kept one when both are the same as last
   * time and {@code usable} still holds for it, else a new one from {@code broadcast}.
   */
  synchronized B get(C owner, Map<String, String> entries, Predicate<B> usable,
      Supplier<B> broadcast) {
    if (value != null && this.owner.get() == owner && usable.test(value) && Objects.equals(this.entries, entries)) {
      return value;
    }
    B fresh = broadcast.get();
    this.owner = new WeakReference<>(owner);
    this.entries = Map.copyOf(entries);
    this.value = fresh;
    return fresh;
  }
}
