package io.floe.spark.write;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.Test;

/** Writers gather distinct values and nulls per indexed column, and give a column up past the limit. */
public class TestFileValueCollector {
  private static final IndexedColumns COLUMNS = new IndexedColumns(List.of(
      new IndexedColumns.Column(7, new int[] {0}, new int[0], DataTypes.LongType),
      new IndexedColumns.Column(9, new int[] {1}, new int[0], DataTypes.StringType)), 3);

  private static GenericInternalRow row(Long id, String s) {
    return new GenericInternalRow(new Object[] {id, s == null ? null : UTF8String.fromString(s)});
  }

  @Test
  public void gathersDistinctValuesAndNullsByFieldId() {
    FileValueCollector collector = new FileValueCollector(COLUMNS);
    collector.add(row(1L, "a"));
    collector.add(row(1L, null));
    collector.add(row(2L, "a"));
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertEquals(new HashSet<>(List.of(1L, 2L)), new HashSet<>(gathered.get(7).values()));
    assertFalse(gathered.get(7).containsNull());
    assertEquals(List.of("a"), gathered.get(9).values());
    assertTrue(gathered.get(9).containsNull());
  }

  @Test
  public void columnPastTheDistinctLimitIsGivenUpForTheFile() {
    FileValueCollector collector = new FileValueCollector(COLUMNS);
    for (long i = 0; i < 10; i++) {
      collector.add(row(i, "same"));
    }
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertFalse(gathered.containsKey(7)); // the file stays uncovered by indexes on field 7
    assertEquals(List.of("same"), gathered.get(9).values());
  }

  @Test
  public void gathersFieldsNestedInStructsAndBinaryValues() {
    // column 0: struct<a: int, inner: struct<b: binary>>; indexed: a (field 3) and inner.b (field 5)
    IndexedColumns nested = new IndexedColumns(List.of(
        new IndexedColumns.Column(3, new int[] {0, 0}, new int[] {2}, DataTypes.IntegerType),
        new IndexedColumns.Column(5, new int[] {0, 1, 0}, new int[] {2, 1}, DataTypes.BinaryType)), 100);
    FileValueCollector collector = new FileValueCollector(nested);
    collector.add(new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[] {
        1, new GenericInternalRow(new Object[] {new byte[] {1, 2}})})}));
    collector.add(new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[] {
        1, new GenericInternalRow(new Object[] {new byte[] {1, 2}})})})); // equal bytes, another array
    collector.add(new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[] {2, null})}));
    collector.add(new GenericInternalRow(new Object[] {null})); // a null struct: both fields are null
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertEquals(new HashSet<>(List.of(1, 2)), new HashSet<>(gathered.get(3).values()));
    assertTrue(gathered.get(3).containsNull());
    assertEquals(List.of(ByteBuffer.wrap(new byte[] {1, 2})), gathered.get(5).javaValues());
    assertTrue("travels as bytes: ByteBuffer is not serializable", gathered.get(5).values().get(0) instanceof byte[]);
    assertTrue(gathered.get(5).containsNull());
  }

  @Test
  public void stringsAreCopiedWhenGatheredSinceWritersReuseRowBuffers() {
    FileValueCollector collector = new FileValueCollector(COLUMNS);
    byte[] buffer = "ab".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    UTF8String view = UTF8String.fromBytes(buffer); // a view of the buffer, as in an UnsafeRow
    collector.add(new GenericInternalRow(new Object[] {1L, view}));
    buffer[0] = 'x'; // the writer's next row reuses the buffer: now "xb"
    collector.add(new GenericInternalRow(new Object[] {1L, view}));
    assertEquals(new HashSet<>(List.of("ab", "xb")), new HashSet<>(collector.gathered().get(9).values()));
  }

  @Test
  public void integralTypesTravelAsTheirJavaValues() {
    IndexedColumns typed = new IndexedColumns(List.of(
        new IndexedColumns.Column(1, new int[] {0}, new int[0], DataTypes.DateType),
        new IndexedColumns.Column(2, new int[] {1}, new int[0], DataTypes.ShortType),
        new IndexedColumns.Column(3, new int[] {2}, new int[0], DataTypes.TimestampType)), 100);
    FileValueCollector collector = new FileValueCollector(typed);
    collector.add(new GenericInternalRow(new Object[] {19000, (short) -3, 0L}));
    collector.add(new GenericInternalRow(new Object[] {19000, (short) 4, Long.MIN_VALUE}));
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertEquals(List.of(19000), gathered.get(1).values());
    assertEquals(new HashSet<>(List.of(-3, 4)), new HashSet<>(gathered.get(2).values()));
    assertEquals(new HashSet<>(List.of(0L, Long.MIN_VALUE)), new HashSet<>(gathered.get(3).values()));
  }

  @Test
  public void theLongSetAgreesWithAHashSet() {
    java.util.Random random = new java.util.Random(7);
    LongDistinctSet set = new LongDistinctSet();
    HashSet<Long> expected = new HashSet<>();
    for (int i = 0; i < 200_000; i++) {
      // small keys repeat often, large ones rarely; sequential keys, 0 and the extremes are included
      long value = switch (i % 4) {
        case 0 -> random.nextInt(1000) - 500;
        case 1 -> random.nextLong();
        case 2 -> i;
        default -> i % 3 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
      };
      assertEquals("add " + value, expected.add(value), set.add(value));
    }
    assertEquals(expected.size(), set.size());
    HashSet<Long> seen = new HashSet<>();
    set.forEach(v -> assertTrue("once: " + v, seen.add(v)));
    assertEquals(expected, seen);
  }

  @Test
  public void theLongSetKeepsValuesThatShareTheirLowBits() {
    // multiples of 1024 all fall on the first slot of their block: they must still all be kept
    LongDistinctSet set = new LongDistinctSet();
    for (long i = -50_000; i < 50_000; i++) {
      assertTrue(set.add(i * 1024));
    }
    for (long i = -50_000; i < 50_000; i++) {
      assertFalse(set.add(i * 1024));
    }
    assertEquals(100_000, set.size());
  }

  /** Adds every value to the set and to a HashSet, checking each answer, then the size and forEach. */
  private static LongDistinctSet agree(long[] values) {
    LongDistinctSet set = new LongDistinctSet();
    HashSet<Long> expected = new HashSet<>();
    for (long value : values) {
      assertEquals("add " + value, expected.add(value), set.add(value));
    }
    assertEquals(expected.size(), set.size());
    HashSet<Long> seen = new HashSet<>();
    set.forEach(v -> assertTrue("once: " + v, seen.add(v)));
    assertEquals(expected, seen);
    return set;
  }

  @Test
  public void keysFromASmallRangeBecomeABitmap() {
    java.util.Random random = new java.util.Random(11);
    // 300K rows of item ids below 200K (as D1's ss_item_sk), with 0 and negative offsets too
    for (long offset : new long[] {0, -100_000, 1L << 40, -(1L << 40)}) {
      long[] values = new long[300_000];
      for (int i = 0; i < values.length; i++) {
        values[i] = offset + random.nextInt(200_000);
      }
      LongDistinctSet set = agree(values);
      assertTrue("dense from offset " + offset, set.isDense());
      long[] previous = {Long.MIN_VALUE};
      set.forEach(v -> {
        assertTrue("ascending: " + v, v > previous[0]);
        previous[0] = v;
      });
    }
  }

  @Test
  public void aBitmapWidensBothWaysAndTurnsBackIntoATable() {
    long[] values = new long[120_000];
    for (int i = 0; i < 100_000; i++) {
      values[i] = 1_000_000 + i; // dense
    }
    for (int i = 0; i < 10_000; i++) {
      values[100_000 + i] = 999_999 - 3 * i; // below the base: widens downwards
    }
    for (int i = 0; i < 9_999; i++) {
      values[110_000 + i] = 1_100_000 + 5 * i; // above: widens upwards
    }
    values[119_999] = 1L << 50; // far away: a table again
    LongDistinctSet set = agree(java.util.Arrays.copyOf(values, 119_999));
    assertTrue(set.isDense());
    set = agree(values);
    assertFalse(set.isDense());
    // and stays one, whatever comes after
    for (int i = 0; i < 50_000; i++) {
      set.add(i);
    }
    assertFalse(set.isDense());
    assertEquals(120_000 + 50_000, set.size());
  }

  @Test
  public void bitmapsAtTheEndsOfTheLongRange() {
    for (long start : new long[] {Long.MAX_VALUE - 20_000, Long.MIN_VALUE}) {
      long[] values = new long[40_003];
      for (int i = 0; i < 20_000; i++) {
        values[i] = start + i;
      }
      // widening towards the end of the range, then the other end, then 0
      for (int i = 0; i < 20_000; i++) {
        values[20_000 + i] = start < 0 ? start + 20_000 + i : start + 1 + i;
      }
      values[40_000] = start < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
      values[40_001] = start < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
      values[40_002] = 0;
      LongDistinctSet set = agree(java.util.Arrays.copyOf(values, 40_001));
      assertTrue("dense from " + start, set.isDense());
      assertFalse(agree(values).isDense());
    }
  }

  @Test
  public void sparseKeysStayATable() {
    java.util.Random random = new java.util.Random(5);
    long[] values = new long[100_000];
    for (int i = 0; i < values.length; i++) {
      values[i] = random.nextLong() >>> 20; // timestamps in microseconds, say
    }
    assertFalse(agree(values).isDense());
  }

  @Test
  public void aBitmapWidensGeometricallyWhateverTheOrder() {
    // values arriving one by one past either end, dense first and then every 128 (just past the
    // density a bitmap keeps), or consecutive from either end of the long range: each widening
    // must add a share of the bitmap, not a word or two, else a file's values cost quadratic time
    int n = 1_000_000;
    long[][] cases = new long[6][];
    for (int c = 0; c < cases.length; c++) {
      cases[c] = new long[n];
    }
    for (int i = 0; i < n; i++) {
      long spread = i < 40 ? i : 40 + 128L * (i - 40);
      cases[0][i] = spread;
      cases[1][i] = -spread;
      cases[2][i] = 100L * i;
      cases[3][i] = Long.MIN_VALUE + i;
      cases[4][i] = Long.MAX_VALUE - i;
      cases[5][i] = Long.MAX_VALUE - n + i;
    }
    for (long[] values : cases) {
      LongDistinctSet set = new LongDistinctSet();
      for (long value : values) {
        assertTrue("added " + value, set.add(value));
      }
      assertEquals(n, set.size());
      assertTrue("widened " + set.widenings() + " times from " + values[0], set.widenings() < 100);
    }
    assertTrue(agree(cases[3]).isDense());
    assertTrue(agree(cases[5]).isDense());
  }
}
