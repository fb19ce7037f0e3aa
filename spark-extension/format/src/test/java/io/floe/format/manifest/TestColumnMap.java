package io.floe.format.manifest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** {@link ColumnMap}: a read-only {@code Map} with the semantics of the LinkedHashMap it replaces. */
public class TestColumnMap {
  @Test
  public void ascendingIdsMakeACompactMapThatBehavesAsAMap() {
    Map<Integer, Long> map = ColumnMap.longs(new int[] {1, 2, 5, 9, 0}, new long[] {10, 20, 50, 90, 0}, 4);
    assertTrue(map instanceof ColumnMap.Longs);
    Map<Integer, Long> expected = new LinkedHashMap<>();
    expected.put(1, 10L);
    expected.put(2, 20L);
    expected.put(5, 50L);
    expected.put(9, 90L);
    assertEquals(expected, map);
    assertEquals(map, expected);
    assertEquals(expected.hashCode(), map.hashCode());
    assertEquals(expected.toString(), map.toString());
    assertEquals(4, map.size());
    assertEquals(Long.valueOf(50L), map.get(5));
    assertNull("an id between two others", map.get(3));
    assertNull("an id past the last", map.get(10));
    assertNull("a key of another type", map.get(5L));
    assertTrue(map.containsKey(9));
    assertFalse(map.containsKey(0));
    assertEquals(List.of(1, 2, 5, 9), new ArrayList<>(map.keySet()));
    assertThrows(UnsupportedOperationException.class, () -> map.put(3, 30L));
    assertThrows(UnsupportedOperationException.class, () -> map.remove(1));
    assertThrows(UnsupportedOperationException.class, () -> map.entrySet().iterator().next().setValue(1L));
  }

  @Test
  public void idsInAnotherOrderKeepItAndAreFound() {
    Map<Integer, Long> map = ColumnMap.longs(new int[] {7, -2, 3, 100, 5}, new long[] {70, -20, 30, 1000, 50}, 5);
    assertTrue(map instanceof ColumnMap.Longs);
    assertEquals(List.of(7, -2, 3, 100, 5), new ArrayList<>(map.keySet()));
    assertEquals(List.of(70L, -20L, 30L, 1000L, 50L), new ArrayList<>(map.values()));
    for (int id : new int[] {7, -2, 3, 100, 5}) {
      assertEquals(Long.valueOf(id * 10L), map.get(id));
    }
    assertNull(map.get(4));
    assertNull(map.get(-3));
    assertNull(map.get(101));
  }

  @Test
  public void aRepeatedIdKeepsLinkedHashMapSemantics() {
    // the id keeps its first position and takes its last value, as LinkedHashMap.put does
    Map<Integer, Long> map = ColumnMap.longs(new int[] {3, 1, 3}, new long[] {30, 10, 31}, 3);
    assertFalse(map instanceof ColumnMap);
    assertEquals(List.of(3, 1), new ArrayList<>(map.keySet()));
    assertEquals(Long.valueOf(31L), map.get(3));
    assertThrows(UnsupportedOperationException.class, () -> map.put(4, 40L));
    assertTrue(ColumnMap.longs(new int[0], new long[0], 0).isEmpty());
  }

  @Test
  public void eachBoundLookupGetsABufferOfItsOwn() {
    Map<Integer, ByteBuffer> bounds = ColumnMap.bytes(new int[] {1, 4}, new byte[][] {{1, 2, 3, 4}, {9}}, 2);
    assertTrue(bounds instanceof ColumnMap.Bytes);
    ByteBuffer first = bounds.get(1);
    assertEquals(0x01020304, first.getInt());
    assertEquals("another reader's position is not moved", 0, bounds.get(1).position());
    assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), bounds.get(1));
    assertEquals(Map.of(1, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 4, ByteBuffer.wrap(new byte[] {9})), bounds);
    Map<Integer, ByteBuffer> unordered = ColumnMap.bytes(new int[] {4, 1}, new byte[][] {{9}, {1}}, 2);
    assertTrue(unordered instanceof ColumnMap.Bytes);
    assertEquals(List.of(4, 1), new ArrayList<>(unordered.keySet()));
    assertEquals(ByteBuffer.wrap(new byte[] {1}), unordered.get(1));
    Map<Integer, ByteBuffer> repeated = ColumnMap.bytes(new int[] {4, 4}, new byte[][] {{9}, {1}}, 2);
    assertFalse(repeated instanceof ColumnMap);
    assertEquals(Map.of(4, ByteBuffer.wrap(new byte[] {1})), repeated);
  }
}
