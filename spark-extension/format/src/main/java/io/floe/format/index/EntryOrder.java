package io.floe.format.index;

import java.util.Arrays;
import java.util.List;

/**
 * The order in which a segment writes its entries: entry positions sorted by key in
 * {@link IndexKeys#ORDER}, stable (entries with equal keys keep the order they were added in).
 * Integral keys ({@code Integer}, {@code Long}: int, bigint, date, time and timestamp columns) are
 * sorted by an LSD radix sort on primitive arrays, which avoids boxing every position and comparing
 * through the generic comparator; a segment of a large {@code CREATE INDEX} holds millions of them.
 * Integral keys that arrive as ascending runs (one per data file, as an index build gathers them)
 * are merged instead ({@link #byMerge}), in the same order. String and binary keys are sorted by
 * their serialized bytes ({@link #byBytes}: a radix sort of their first 8), other keys by a stable
 * comparator sort.
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

  /**
   * Positions of the first {@code n} keys stored back to back in {@code data} (key {@code i} from
   * {@code starts[i]} to {@code starts[i + 1]}), serialized string or binary keys, in unsigned byte
   * order, stable: the comparator's order of the keys themselves (UTF-8 bytes sort as code points
   * do, and binary compares unsigned). Each key's first 8 bytes, as an unsigned number, are radix
   * sorted ({@link #byRadix}); only keys that share those bytes are then compared whole, in
   * their small groups (a comparison sort of every key, boxed, cost most of a commit's segment write).
   */
  static int[] byBytes(byte[] data, int[] starts, int n) {
    long[] prefixes = new long[n];
    for (int i = 0; i < n; i++) {
      int from = starts[i];
      int length = starts[i + 1] - from;
      long prefix = 0;
      for (int b = 0; b < Long.BYTES; b++) { // shorter keys padded with zero bytes: ties, compared whole
        prefix = (prefix << Byte.SIZE) | (b < length ? data[from + b] & 0xFF : 0);
      }
      prefixes[i] = prefix ^ Long.MIN_VALUE; // unsigned order as byRadix's signed order
    }
    int[] order = byRadix(prefixes, n);
    for (int lo = 0; lo < n;) {
      int hi = lo + 1;
      while (hi < n && prefixes[order[hi]] == prefixes[order[lo]]) {
        hi++;
      }
      if (hi - lo > 1) {
        sortWhole(order, lo, hi, data, starts);
      }
      lo = hi;
    }
    return order;
  }

  /** Sorts {@code order[lo, hi)}, positions ascending, by their keys' whole bytes, stably. */
  private static void sortWhole(int[] order, int lo, int hi, byte[] data, int[] starts) {
    if (hi - lo <= 16) { // insertion sort: stable, and the cheapest for the usual few
      for (int i = lo + 1; i < hi; i++) {
        int position = order[i];
        int j = i - 1;
        for (; j >= lo && compare(order[j], position, data, starts) > 0; j--) {
          order[j + 1] = order[j];
        }
        order[j + 1] = position;
      }
      return;
    }
    Integer[] group = new Integer[hi - lo];
    for (int i = lo; i < hi; i++) {
      group[i - lo] = order[i];
    }
    Arrays.sort(group, (a, b) -> compare(a, b, data, starts));
    for (int i = lo; i < hi; i++) {
      order[i] = group[i - lo];
    }
  }

  private static int compare(int a, int b, byte[] data, int[] starts) {
    return Arrays.compareUnsigned(data, starts[a], starts[a + 1], data, starts[b], starts[b + 1]);
  }

  private static int[] byComparator(List<Object> keys) {
    Integer[] order = new Integer[keys.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> IndexKeys.ORDER.compare(keys.get(a), keys.get(b)));
    return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
  }

  /**
   * Positions of the first {@code n} of {@code values} in signed order, stable, where the values
   * are {@code runs} runs each in ascending (signed) order, run {@code r} starting at
   * {@code starts[r]} (ascending, the first at 0): what {@link #byRadix} returns, by merging the
   * runs (a heap of their heads, equal heads taken in run order). An index build adds each data
   * file's keys sorted, so its segment's entries are such runs, one per file.
   */
  static int[] byMerge(long[] values, int n, int[] starts, int runs) {
    for (int r = 0; r < runs; r++) { // runs that do not tile 0..n would make positions repeat
      if (starts[r] < (r == 0 ? 0 : starts[r - 1]) || starts[r] > n || (r == 0 && starts[r] != 0)) {
        throw new IllegalArgumentException("Invalid runs: run " + r + " starts at " + starts[r] + " of " + n);
      }
    }
    if (runs == 0 && n > 0) {
      throw new IllegalArgumentException("Invalid runs: none for " + n + " values");
    }
    int[] order = new int[n];
    int[] next = new int[runs]; // each run's next position
    int[] ends = new int[runs];
    int[] heap = new int[runs]; // runs with positions left, by (head value, run)
    int heapSize = 0;
    for (int r = 0; r < runs; r++) {
      next[r] = starts[r];
      ends[r] = r + 1 < runs ? starts[r + 1] : n;
      if (next[r] < ends[r]) {
        heap[heapSize++] = r;
      }
    }
    for (int i = heapSize / 2 - 1; i >= 0; i--) {
      siftDown(heap, heapSize, i, values, next);
    }
    for (int out = 0; out < n; out++) {
      int run = heap[0];
      order[out] = next[run]++;
      if (next[run] == ends[run]) {
        heap[0] = heap[--heapSize];
      }
      if (heapSize > 0) {
        siftDown(heap, heapSize, 0, values, next);
      }
    }
    return order;
  }

  private static void siftDown(int[] heap, int size, int from, long[] values, int[] next) {
    int i = from;
    int run = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && before(heap[child + 1], heap[child], values, next)) {
        child++;
      }
      if (!before(heap[child], run, values, next)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = run;
  }

  /** Whether run {@code a}'s head comes before run {@code b}'s: a lower value, or equal and an earlier run. */
  private static boolean before(int a, int b, long[] values, int[] next) {
    long va = values[next[a]];
    long vb = values[next[b]];
    return va < vb || (va == vb && a < b);
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
