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

  /** Serialized string and binary keys sort bytewise exactly as the keys do by the comparator, stably. */
  @Test
  public void serializedStringAndBinaryKeysSortBytewiseInTheComparatorsOrder() {
    Random random = new Random(3);
    for (io.floe.format.types.Type type : List.of(io.floe.format.types.Types.StringType.get(),
        io.floe.format.types.Types.BinaryType.get())) {
      for (int trial = 0; trial < 20; trial++) {
        List<Object> keys = new ArrayList<>();
        for (int i = random.nextInt(3_000); i > 0; i--) { // duplicates among them: the stable order counts
          Object key = IndexFixtures.randomValue(type, random);
          if (trial % 2 == 1 && type.typeId() == io.floe.format.types.Type.TypeID.STRING) {
            // many keys sharing their first 8 bytes and more (a group sorted whole), or one
            // a zero byte longer than another (equal once short keys are padded)
            key = switch (random.nextInt(3)) {
              case 0 -> "https://example.com/" + key;
              case 1 -> "tag-" + random.nextInt(300);
              default -> key + "\u0000".repeat(random.nextInt(3));
            };
          }
          keys.add(key);
        }
        java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
        int[] starts = new int[keys.size() + 2];
        for (int i = 0; i < keys.size(); i++) {
          starts[i] = data.size();
          data.writeBytes(IndexKeys.toBytes(type, keys.get(i)));
        }
        starts[keys.size()] = data.size();
        data.writeBytes(new byte[] {0, 1, 2}); // past the keys, as a writer's array has room
        starts[keys.size() + 1] = data.size();
        assertArrayEquals(type + " trial " + trial, comparatorOrder(keys),
            EntryOrder.byBytes(data.toByteArray(), starts, keys.size()));
      }
    }
  }

  /** Merging ascending runs gives the radix order: ties across runs in run order, empty runs skipped. */
  @Test
  public void mergedRunsGiveTheStableOrder() {
    Random random = new Random(11);
    for (int trial = 0; trial < 200; trial++) {
      int runs = 1 + random.nextInt(trial < 100 ? 5 : 60);
      int[] starts = new int[runs];
      long[] values = new long[0];
      int n = 0;
      for (int r = 0; r < runs; r++) {
        starts[r] = n;
        int length = random.nextInt(4) == 0 ? 0 : random.nextInt(300);
        long[] run = new long[length];
        for (int i = 0; i < length; i++) {
          run[i] = switch (random.nextInt(4)) {
            case 0 -> random.nextLong();
            case 1 -> random.nextInt(20) - 10; // shared by several runs, repeated within one
            case 2 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
            default -> random.nextLong() >> 40;
          };
        }
        Arrays.sort(run);
        values = Arrays.copyOf(values, n + length + 3); // room past n, as a writer's array has
        System.arraycopy(run, 0, values, n, length);
        n += length;
      }
      assertArrayEquals("trial " + trial, EntryOrder.byRadix(values, n), EntryOrder.byMerge(values, n, starts, runs));
    }
  }
}
