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
}
