package io.floe.spark.write;

import java.util.function.LongConsumer;

/**
 * A set of {@code long} values without boxing (open addressing, linear probing), for gathering an
 * indexed integral column's distinct values row by row while a data file is written: a
 * {@code HashSet<Long>} allocates a box and a node per new value and hashes through
 * {@code Long.hashCode}, which made gathering cost as much as encoding the column. Not thread-safe.
 *
 * <p>Slots form blocks of eight (one 64-byte cache line). A value's block comes from a Fibonacci
 * hash of the value without its low three bits, its place in the block mostly from those bits: values that
 * differ only there (neighbours, as in data sorted or clustered by the column) share one cache line,
 * so a table larger than the CPU caches costs one miss per eight of them rather than one each.
 */
final class LongDistinctSet {
  private static final int INITIAL_CAPACITY = 64; // a power of two
  /** Multiplier of Fibonacci hashing (2^64 / golden ratio), which spreads sequential keys. */
  private static final long MIX = 0x9E3779B97F4A7C15L;
  private static final int BLOCK_BITS = 3;

  /** Slots; 0 marks an empty slot, so the value 0 is tracked by {@link #hasZero}. */
  private long[] slots = new long[INITIAL_CAPACITY];
  /** Shifts a hash down to a block number: 64 minus the bits of the number of blocks. */
  private int shift = Long.SIZE - (Integer.numberOfTrailingZeros(INITIAL_CAPACITY) - BLOCK_BITS);
  private int used;
  private boolean hasZero;

  /** Adds {@code value}; true when it was not in the set. */
  boolean add(long value) {
    if (value == 0) {
      boolean added = !hasZero;
      hasZero = true;
      return added;
    }
    int mask = slots.length - 1;
    int i = slot(value);
    while (true) {
      long slot = slots[i];
      if (slot == 0) {
        slots[i] = value;
        used += 1;
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

  int size() {
    return used + (hasZero ? 1 : 0);
  }

  /** Calls {@code action} with every value once, in no particular order. */
  void forEach(LongConsumer action) {
    if (hasZero) {
      action.accept(0L);
    }
    for (long slot : slots) {
      if (slot != 0) {
        action.accept(slot);
      }
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
    long[] old = slots;
    slots = new long[old.length * 2];
    shift -= 1;
    int mask = slots.length - 1;
    for (long value : old) {
      if (value != 0) {
        int i = slot(value);
        while (slots[i] != 0) {
          i = (i + 1) & mask;
        }
        slots[i] = value;
      }
    }
  }
}
