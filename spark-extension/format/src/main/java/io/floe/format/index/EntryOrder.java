package io.floe.format.index;

import java.util.Arrays;
import java.util.List;

/**
 * The order in which a segment writes its entries: entry positions sorted by key in
 * {@link IndexKeys#ORDER}, stable (entries with equal keys keep the order they were added in).
 * Integral keys ({@code Integer}, {@code Long}: int, bigint, date, time and timestamp columns) are
 * sorted by an LSD radix sort on primitive arrays, which avoids boxing every position and comparing
 * through the generic comparator; a segment of a large {@code CREATE INDEX} holds millions of them.
 * Other keys use a stable comparator sort.
 */
final class EntryOrder {
  private EntryOrder() {}

  static int[] of(List<Object> keys) {
    int n = keys.size();
    long[] integral = new long[n];
    for (int i = 0; i < n; i++) {
      Object key = keys.get(i);
      if (!(key instanceof Long) && !(key instanceof Integer)) {
        return byComparator(keys);
      }
      integral[i] = ((Number) key).longValue();
    }
    return byRadix(integral);
  }

  private static int[] byComparator(List<Object> keys) {
    Integer[] order = new Integer[keys.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> IndexKeys.ORDER.compare(keys.get(a), keys.get(b)));
    return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
  }

  /** Positions of {@code values} in signed order, stable: one counting pass per byte that varies. */
  static int[] byRadix(long[] values) {
    return byRadix(values, values.length);
  }

  /** Positions of the first {@code n} of {@code values} in signed order, stable. */
  static int[] byRadix(long[] values, int n) {
    long[] keys = new long[n];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      keys[i] = values[i] ^ Long.MIN_VALUE; // signed order as unsigned bytes
      order[i] = i;
    }
    long[] keysTo = new long[n];
    int[] orderTo = new int[n];
    int[] counts = new int[257];
    for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
      Arrays.fill(counts, 0);
      for (long key : keys) {
        counts[(int) ((key >>> shift) & 0xFF) + 1]++;
      }
      if (n == 0 || counts[(int) ((keys[0] >>> shift) & 0xFF) + 1] == n) {
        continue; // every key has the same byte here: the pass would not move anything
      }
      for (int b = 0; b < 256; b++) {
        counts[b + 1] += counts[b];
      }
      for (int i = 0; i < n; i++) {
        int to = counts[(int) ((keys[i] >>> shift) & 0xFF)]++;
        keysTo[to] = keys[i];
        orderTo[to] = order[i];
      }
      long[] k = keys;
      keys = keysTo;
      keysTo = k;
      int[] o = order;
      order = orderTo;
      orderTo = o;
    }
    return order;
  }
}
