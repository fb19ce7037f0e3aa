package io.floe.format.manifest;

import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A read-only map from field id to one column statistic of a content file (a count or a bound),
 * as decoded from a manifest: the ids in one ascending {@code int} array, the values unboxed in an
 * array beside it. A manifest gives every file up to six such maps with an entry per column, so a
 * plan over 100,000 files holds millions of entries; in a {@code LinkedHashMap} each costs a node,
 * a boxed key and a boxed value, which the garbage collector then copies while the plan runs (a
 * third of a cold plan's time at 100,000 files, before this class). Iterates in the order the
 * manifest lists the ids, as the {@code LinkedHashMap} did; lookups search the ids, through a
 * sorted index of their positions when the manifest did not list them in ascending order. A list
 * that repeats an id gets a read-only {@code LinkedHashMap} instead, with the semantics the decoder
 * had before (the id keeps its first position and takes its last value).
 */
abstract sealed class ColumnMap<V> extends AbstractMap<Integer, V> permits ColumnMap.Longs, ColumnMap.Bytes {
  /** The ids in the manifest's order. */
  private final int[] ids;
  /** Positions in {@link #ids} by ascending id; null when the ids are ascending already. */
  private final int[] byId;

  private ColumnMap(int[] ids, int[] byId) {
    this.ids = ids;
    this.byId = byId;
  }

  /**
   * The counts {@code values[i]} of the fields {@code ids[i]}, for {@code i < size}. Arrays of
   * exactly {@code size} values become the map's own: the caller must not change them afterwards.
   */
  static Map<Integer, Long> longs(int[] ids, long[] values, int size) {
    int[] byId = positionsById(ids, size);
    if (byId != REPEATED) {
      return new Longs(trim(ids, size), byId, values.length == size ? values : Arrays.copyOf(values, size));
    }
    Map<Integer, Long> map = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      map.put(ids[i], values[i]);
    }
    return Collections.unmodifiableMap(map);
  }

  /** The bounds {@code values[i]} (serialized single values) of the fields {@code ids[i]}, as {@link #longs}. */
  static Map<Integer, ByteBuffer> bytes(int[] ids, byte[][] values, int size) {
    int[] byId = positionsById(ids, size);
    if (byId != REPEATED) {
      return new Bytes(trim(ids, size), byId, values.length == size ? values : Arrays.copyOf(values, size));
    }
    Map<Integer, ByteBuffer> map = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      map.put(ids[i], ByteBuffer.wrap(values[i]));
    }
    return Collections.unmodifiableMap(map);
  }

  /** {@code ids} itself when it holds exactly {@code size} ids (the decoder sizes it so), else a copy. */
  private static int[] trim(int[] ids, int size) {
    return ids.length == size ? ids : Arrays.copyOf(ids, size);
  }

  /** What {@link #positionsById} returns for ids with a repeat. */
  private static final int[] REPEATED = new int[0];

  /**
   * The positions of the first {@code size} ids in ascending id order; null when they are
   * ascending already (as writers usually list them), {@link #REPEATED} when an id repeats.
   */
  private static int[] positionsById(int[] ids, int size) {
    boolean ascending = true;
    for (int i = 1; i < size && ascending; i++) {
      ascending = ids[i - 1] < ids[i];
    }
    if (ascending) {
      return null;
    }
    long[] keyed = new long[size]; // the id in the high half, its position in the low half
    for (int i = 0; i < size; i++) {
      keyed[i] = ((long) ids[i] << 32) | i;
    }
    Arrays.sort(keyed);
    int[] byId = new int[size];
    for (int i = 0; i < size; i++) {
      byId[i] = (int) keyed[i];
      if (i > 0 && ids[byId[i - 1]] == ids[byId[i]]) {
        return REPEATED;
      }
    }
    return byId;
  }

  abstract V valueAt(int index);

  /** The position of {@code key} in {@link #ids}, or -1. */
  private int indexOf(Object key) {
    if (!(key instanceof Integer id)) {
      return -1;
    }
    int low = 0;
    int high = ids.length - 1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      int position = byId == null ? middle : byId[middle];
      int found = ids[position];
      if (found < id) {
        low = middle + 1;
      } else if (found > id) {
        high = middle - 1;
      } else {
        return position;
      }
    }
    return -1;
  }

  @Override
  public int size() {
    return ids.length;
  }

  @Override
  public boolean containsKey(Object key) {
    return indexOf(key) >= 0;
  }

  @Override
  public V get(Object key) {
    int index = indexOf(key);
    return index < 0 ? null : valueAt(index);
  }

  @Override
  public Set<Entry<Integer, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return ids.length;
      }

      @Override
      public Iterator<Entry<Integer, V>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < ids.length;
          }

          @Override
          public Entry<Integer, V> next() {
            if (next >= ids.length) {
              throw new NoSuchElementException();
            }
            int index = next++;
            return new SimpleImmutableEntry<>(ids[index], valueAt(index));
          }
        };
      }
    };
  }

  /** Counts (column sizes, value, null and NaN counts). */
  static final class Longs extends ColumnMap<Long> {
    private final long[] values;

    private Longs(int[] ids, int[] byId, long[] values) {
      super(ids, byId);
      this.values = values;
    }

    @Override
    Long valueAt(int index) {
      return values[index];
    }
  }

  /**
   * Bounds. Each lookup gets a buffer of its own over the decoded bytes (position 0), so that one
   * reader moving its position cannot move another's.
   */
  static final class Bytes extends ColumnMap<ByteBuffer> {
    private final byte[][] values;

    private Bytes(int[] ids, int[] byId, byte[][] values) {
      super(ids, byId);
      this.values = values;
    }

    @Override
    ByteBuffer valueAt(int index) {
      return ByteBuffer.wrap(values[index]);
    }
  }
}
