package io.floe.format.index;

import static org.junit.Assert.assertArrayEquals;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.Test;

/** The radix order of integral keys is exactly the stable comparator order a segment writes in. */
public class TestEntryOrder {
  private static int[] comparatorOrder(List<Object> keys) {
    Integer[] order = new Integer[keys.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> IndexKeys.ORDER.compare(keys.get(a), keys.get(b)));
    return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
  }

  private static void assertSameOrder(List<Object> keys) {
    assertArrayEquals(comparatorOrder(keys), EntryOrder.of(keys));
  }

  @Test
  public void signedLongsWithDuplicatesAndExtremesSortStably() {
    Random random = new Random(42);
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      keys.add(switch (i % 5) {
        case 0 -> random.nextLong();
        case 1 -> (long) random.nextInt(100) - 50; // many duplicates around zero
        case 2 -> Long.MIN_VALUE + random.nextInt(3);
        case 3 -> Long.MAX_VALUE - random.nextInt(3);
        default -> (long) random.nextInt();
      });
    }
    assertSameOrder(keys);
  }

  @Test
  public void intsAndMixedIntegralKeysCompareByValue() {
    Random random = new Random(7);
    List<Object> ints = new ArrayList<>();
    List<Object> mixed = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      int v = random.nextInt(2_000) - 1_000;
      ints.add(v);
      mixed.add(i % 2 == 0 ? (Object) v : (Object) (long) v);
    }
    assertSameOrder(ints);
    assertSameOrder(mixed);
  }

  @Test
  public void keysOfOneValueEmptyAndNonIntegralKeys() {
    assertSameOrder(new ArrayList<>(List.of(5L, 5L, 5L, 5L)));
    assertSameOrder(new ArrayList<>());
    assertSameOrder(new ArrayList<>(List.of("b", "a", "c", "a", "ab")));
    assertSameOrder(new ArrayList<>(List.of(new BigDecimal("2.50"), new BigDecimal("-1.00"), new BigDecimal("2.5"))));
  }
}
