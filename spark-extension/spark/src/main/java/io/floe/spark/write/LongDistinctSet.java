package io.floe.spark.write;

import java.util.function.LongConsumer;

/**
 * A set of {@code long} values without boxing, for gathering an indexed integral column's distinct
 * values row by row while a data file is written: a {@code HashSet<Long>} allocates a box and a node
 * per new value and hashes through {@code Long.hashCode}, which made gathering cost as much as
 * encoding the column. Not thread-safe.
 *
 * <p>Two layouts. It starts as a hash table (open addressing, linear probing). Slots form blocks of
 * eight (one 64-byte cache line); a value's block comes from a Fibonacci hash of the value without
 * its low three bits, its place in the block mostly from those bits, so neighbours (data sorted or
 * clustered by the column) share a cache line. Each time the table grows, the set checks how
 * densely its values fill the range between the least and the greatest: when that range holds at
 * most {@link #DENSE_BITS_PER_VALUE} times as many integers as the set has values, it becomes a
 * bitmap of the range (one bit per integer: at most 8 bytes per value then, 16 after widening,
 * where the table takes 16 to 32). Keys drawn from a range much smaller than the rows of a file
 * (item, customer or store ids, dates) then cost a bit test each instead of a cache miss in a table
 * of megabytes. The bitmap widens by at least a quarter at a time; a value that would widen it past
 * {@link #DENSE_BITS_PER_VALUE_MAX} integers per value turns it back into a table, for good.
 */
final class LongDistinctSet {
  private static final int INITIAL_CAPACITY = 64; // a power of two
  /** Multiplier of Fibonacci hashing (2^64 / golden ratio), which spreads sequential keys. */
  private static final long MIX = 0x9E3779B97F4A7C15L;
  private static final int BLOCK_BITS = 3;
  /** A table becomes a bitmap when its values' range has at most this many integers per value. */
  static final long DENSE_BITS_PER_VALUE = 64;
  /** A bitmap widened past this many integers per value becomes a table again. */
  static final long DENSE_BITS_PER_VALUE_MAX = 128;
  /** The widest bitmap, in 64-bit words (2^31 bits, 256 MiB). */
  private static final long MAX_WORDS = 1L << 25;

  /** Table slots (null while dense); 0 marks an empty slot, so the value 0 is tracked by {@link #hasZero}. */
  private long[] slots = new long[INITIAL_CAPACITY];
  /** Shifts a hash down to a block number: 64 minus the bits of the number of blocks. */
  private int shift = Long.SIZE - (Integer.numberOfTrailingZeros(INITIAL_CAPACITY) - BLOCK_BITS);
  /** Values in {@link #slots} (0 excluded). */
  private int used;
  private boolean hasZero;
  /** The least and greatest value added while a table (for the density check). */
  private long min = Long.MAX_VALUE;
  private long max = Long.MIN_VALUE;
  /** Bitmap words while dense (else null): bit {@code i} stands for {@code base + i}. */
  private long[] words;
  /** The value of the bitmap's first bit, a multiple of 64. */
  private long base;
  /** Values in {@link #words}. */
  private int bitCount;
  /** True once a bitmap went back to a table: the set stays a table. */
  private boolean sparse;
  /** Times the bitmap was widened (for tests: it must stay a small multiple of its doublings). */
  private int widenings;

  /** Adds {@code value}; true when it was not in the set. */
  boolean add(long value) {
    if (words != null) {
      // unsigned: a value below the base wraps to a large offset (the bitmap never passes Long.MAX_VALUE)
      long offset = value - base;
      if (Long.compareUnsigned(offset, (long) words.length << 6) < 0) {
        int word = (int) (offset >>> 6);
        long bit = 1L << offset; // the shift uses the low six bits of the offset
        if ((words[word] & bit) != 0) {
          return false;
        }
        words[word] |= bit;
        bitCount += 1;
        return true;
      }
      return addOutsideBitmap(value);
    }
    return addToTable(value);
  }

  int size() {
    return words != null ? bitCount : used + (hasZero ? 1 : 0);
  }

  /** Calls {@code action} with every value once, in no particular order (ascending while dense). */
  void forEach(LongConsumer action) {
    if (words != null) {
      for (int w = 0; w < words.length; w++) {
        long bits = words[w];
        while (bits != 0) {
          action.accept(base + ((long) w << 6) + Long.numberOfTrailingZeros(bits));
          bits &= bits - 1;
        }
      }
      return;
    }
    if (hasZero) {
      action.accept(0L);
    }
    for (long slot : slots) {
      if (slot != 0) {
        action.accept(slot);
      }
    }
  }

  /** True while the values are kept as a bitmap (for tests). */
  boolean isDense() {
    return words != null;
  }

  /** How many times the bitmap was widened so far (for tests). */
  int widenings() {
    return widenings;
  }

  private boolean addToTable(long value) {
    if (value == 0) {
      boolean added = !hasZero;
      hasZero = true;
      if (!sparse) {
        min = Math.min(min, 0);
        max = Math.max(max, 0);
      }
      return added;
    }
    int mask = slots.length - 1;
    int i = slot(value);
    while (true) {
      long slot = slots[i];
      if (slot == 0) {
        slots[i] = value;
        used += 1;
        if (!sparse) {
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
        if (2 * used > slots.length) {
          grow();
        }
        return true;
      } else if (slot == value) {
        return false;
      }
      i = (i + 1) & mask;
    }
  }

  /**
   * The first slot to probe for {@code value}: in the block the hash's top bits choose, its low three
   * bits XOR three middle bits of the same hash. Values of one block still take distinct places, and
   * values whose low bits are all equal (timestamps in whole seconds) do not all start at one place.
   */
  private int slot(long value) {
    long mixed = (value >>> BLOCK_BITS) * MIX;
    int block = (int) (mixed >>> shift);
    return (block << BLOCK_BITS) | (int) ((value ^ (mixed >>> 32)) & ((1 << BLOCK_BITS) - 1));
  }

  private void grow() {
    if (!sparse && becomeDense()) {
      return;
    }
    long[] old = slots;
    slots = new long[old.length * 2];
    shift -= 1;
    for (long value : old) {
      if (value != 0) {
        place(value);
      }
    }
  }

  private void place(long value) {
    int mask = slots.length - 1;
    int i = slot(value);
    while (slots[i] != 0) {
      i = (i + 1) & mask;
    }
    slots[i] = value;
  }

  /** Turns the table into a bitmap of [min, max] if that range is dense enough; true if it did. */
  private boolean becomeDense() {
    int count = size();
    long first = min & ~63L;
    long words = wordsFor(first, max);
    if (words < 0 || words > MAX_WORDS || (words << 6) > DENSE_BITS_PER_VALUE * count) {
      return false;
    }
    long[] bitmap = new long[(int) words];
    for (long value : slots) {
      if (value != 0) {
        setBit(bitmap, value - first);
      }
    }
    if (hasZero) {
      setBit(bitmap, -first);
    }
    this.words = bitmap;
    this.base = first;
    this.bitCount = count;
    this.slots = null;
    return true;
  }

  /**
   * Adds a value outside the bitmap: the bitmap widens (at least doubling, towards the value) while
   * it stays dense enough, else the set becomes a table.
   */
  private boolean addOutsideBitmap(long value) {
    long first = Math.min(base, value & ~63L);
    long last = Math.max(base + ((long) words.length << 6) - 1, value); // at most Long.MAX_VALUE
    long needed = wordsFor(first, last);
    long limit = Math.min(MAX_WORDS, (DENSE_BITS_PER_VALUE_MAX * (bitCount + 1L)) >>> 6);
    // at least a quarter more than needed, so that values arriving one by one past the end do not
    // copy the bitmap each time: past the limit, a table
    long length = needed < 0 ? -1 : Math.max(needed + (needed >>> 2) + 1, 2L * words.length);
    if (length < 0 || length > limit) {
      length = needed + (needed >>> 2) + 1;
      if (needed < 0 || length > limit) {
        becomeTable();
        return addToTable(value);
      }
    }
    widenings += 1;
    // grow towards the value: new words go below the old ones when the value is below the base
    long newBase = value < base ? first - ((length - needed) << 6) : first;
    if (newBase > first || newBase > Long.MAX_VALUE - (length << 6) + 1) {
      // near the ends of the long range: the new words go where there is room for them
      newBase = value < base ? Long.MIN_VALUE : Long.MAX_VALUE - (length << 6) + 1;
      if (newBase > first || newBase + ((length << 6) - 1) < last) { // not [first, last]: the exact range
        newBase = first;
        length = needed;
      }
    }
    long[] bitmap = new long[(int) length];
    System.arraycopy(words, 0, bitmap, (int) ((base - newBase) >>> 6), words.length);
    words = bitmap;
    base = newBase;
    setBit(words, value - base);
    bitCount += 1;
    return true;
  }

  /** Turns the bitmap back into a table holding the same values, for good. */
  private void becomeTable() {
    int count = bitCount;
    int capacity = INITIAL_CAPACITY;
    while (capacity < 4L * count && capacity < (1 << 30)) {
      capacity *= 2;
    }
    long[] bitmap = words;
    long first = base;
    words = null;
    sparse = true;
    slots = new long[capacity];
    shift = Long.SIZE - (Integer.numberOfTrailingZeros(capacity) - BLOCK_BITS);
    used = 0;
    hasZero = false;
    min = Long.MAX_VALUE;
    max = Long.MIN_VALUE;
    for (int w = 0; w < bitmap.length; w++) {
      long bits = bitmap[w];
      while (bits != 0) {
        long value = first + ((long) w << 6) + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
        if (value == 0) {
          hasZero = true;
        } else {
          place(value);
          used += 1;
        }
        min = Math.min(min, value);
        max = Math.max(max, value);
      }
    }
  }

  /**
   * Words of a bitmap from {@code first} (a multiple of 64) through {@code last}; negative when the
   * range has more than 2^63 - 1 integers.
   */
  private static long wordsFor(long first, long last) {
    long span = last - first; // negative when it overflows
    return span < 0 ? -1 : (span >>> 6) + 1;
  }

  private static void setBit(long[] bitmap, long offset) {
    bitmap[(int) (offset >>> 6)] |= 1L << offset;
  }
}
