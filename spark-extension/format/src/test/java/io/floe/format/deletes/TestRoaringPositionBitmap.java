package io.floe.format.deletes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** 64-bit positions over 32-bit Roaring bitmaps: ranges across keys, merging, the portable layout. */
public class TestRoaringPositionBitmap {
  private static final long KEY = 1L << 32;

  @Test
  public void rangesCrossKeyBoundaries() {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    bitmap.addRange(KEY - 2, KEY + 3);
    List<Long> positions = new ArrayList<>();
    bitmap.forEach(positions::add);
    assertEquals(List.of(KEY - 2, KEY - 1, KEY, KEY + 1, KEY + 2), positions);
    assertFalse(bitmap.contains(KEY + 3));
    assertFalse(bitmap.contains(-1));
    assertFalse(bitmap.contains(Long.MIN_VALUE));
    bitmap.addRange(5, 5); // empty
    assertEquals(5, bitmap.cardinality());
  }

  @Test
  public void mergesAndComparesByPositions() {
    RoaringPositionBitmap a = new RoaringPositionBitmap();
    a.add(3);
    a.add(3 * KEY + 1);
    RoaringPositionBitmap b = new RoaringPositionBitmap();
    b.add(KEY + 9);
    b.add(3);
    a.addAll(b);
    assertEquals(3, a.cardinality());
    assertTrue(a.contains(KEY + 9));

    RoaringPositionBitmap same = new RoaringPositionBitmap();
    for (long p : new long[] {3 * KEY + 1, KEY + 9, 3}) {
      same.add(p);
    }
    assertEquals(a, same);
    assertEquals(a.hashCode(), same.hashCode());
    same.add(4);
    assertNotEquals(a, same);
  }

  @Test
  public void serializedSizeMatchesTheBytesWritten() {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    bitmap.add(5 * KEY + 77); // keys 0..4 are written empty
    bitmap.addRange(0, 100_000);
    bitmap.runLengthEncode();
    ByteBuffer buffer = ByteBuffer.allocate((int) bitmap.serializedSizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
    bitmap.serialize(buffer);
    assertFalse(buffer.hasRemaining());
    buffer.flip();
    assertEquals(6, buffer.getLong(0));
    RoaringPositionBitmap back = RoaringPositionBitmap.deserialize(buffer, "test");
    assertFalse(buffer.hasRemaining());
    assertEquals(bitmap, back);
    assertEquals(100_001, back.cardinality());
  }

  @Test
  public void offsetsInRangeListPositionsOfOneBatch() {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    java.util.Random random = new java.util.Random(42);
    java.util.TreeSet<Long> expected = new java.util.TreeSet<>();
    for (int i = 0; i < 3000; i++) {
      long p = random.nextInt(200_000);
      bitmap.add(p);
      expected.add(p);
    }
    for (long p : new long[] {KEY - 3, KEY - 1, KEY, KEY + 2, 3 * KEY + 5, 0xFFFFFFFFL * 2 + 1}) {
      bitmap.add(p);
      expected.add(p);
    }
    bitmap.addRange(500_000, 510_000); // a run container
    for (long p = 500_000; p < 510_000; p++) {
      expected.add(p);
    }
    int[] out = new int[5000];
    long[][] ranges = {{0, 4096}, {4096, 4096}, {199_990, 4096}, {KEY - 4, 8}, {KEY - 4, 3}, {KEY + 3, 4096},
        {2 * KEY - 2, 5}, {3 * KEY, 4096}, {498_000, 5000}, {505_000, 5000}, {600_000, 4096}, {0, 0},
        {Long.MAX_VALUE - 10, 5}};
    for (long[] range : ranges) {
      long start = range[0];
      int length = (int) range[1];
      int n = bitmap.offsetsInRange(start, length, out);
      List<Long> got = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        got.add(start + out[i]);
      }
      List<Long> want = length == 0 ? List.of() : new ArrayList<>(expected.subSet(start, start + length));
      assertEquals("range " + start + " + " + length, want, got);
    }
    assertEquals(0, new RoaringPositionBitmap().offsetsInRange(0, 4096, out));
  }

  @Test
  public void cursorListsPositionsOfAdjacentAndJumpingRanges() {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    java.util.TreeSet<Long> expected = new java.util.TreeSet<>();
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 20_000; i++) {
      long p = random.nextInt(300_000);
      bitmap.add(p);
      expected.add(p);
    }
    bitmap.addRange(100_000, 140_000); // dense: bitmap and run containers
    for (long p = 100_000; p < 140_000; p++) {
      expected.add(p);
    }
    for (long p : new long[] {KEY - 1, KEY, KEY + 1, 3 * KEY + 7}) {
      bitmap.add(p);
      expected.add(p);
    }
    int[] out = new int[10_000];
    RoaringPositionBitmap.Cursor cursor = bitmap.cursor();
    List<long[]> ranges = new ArrayList<>();
    for (long start = 0; start < 320_000; start += 4096) {
      ranges.add(new long[] {start, 4096}); // batch after batch
    }
    ranges.add(new long[] {150_000, 1000}); // backwards
    ranges.add(new long[] {KEY - 5, 4}); // a jump forward, then across the key boundary
    ranges.add(new long[] {KEY - 1, 3});
    ranges.add(new long[] {KEY + 2, 4096});
    ranges.add(new long[] {2 * KEY, 4096}); // a key without positions
    ranges.add(new long[] {3 * KEY, 4096});
    ranges.add(new long[] {3 * KEY + 4096, 4096}); // past the last position
    for (long[] range : ranges) {
      long start = range[0];
      int length = (int) range[1];
      int n = cursor.offsetsInRange(start, length, out);
      List<Long> got = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        got.add(start + out[i]);
      }
      assertEquals("range " + start + " + " + length, new ArrayList<>(expected.subSet(start, start + length)), got);
    }
    assertEquals(0, new RoaringPositionBitmap().cursor().offsetsInRange(0, 4096, out));
  }
}
