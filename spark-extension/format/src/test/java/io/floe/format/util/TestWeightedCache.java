package io.floe.format.util;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

public class TestWeightedCache {
  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger loads = new AtomicInteger();

  private String load(WeightedCache<String, String> cache, String key, long weight) {
    return cache.get(key, () -> key + " #" + loads.incrementAndGet(), v -> weight);
  }

  @Test
  public void keepsLoadedValuesUntilTheWeightIsExceededLeastRecentlyUsedFirst() {
    WeightedCache<String, String> cache = new WeightedCache<>(100, 1_000, now::get);
    String a = load(cache, "a", 40);
    load(cache, "b", 40);
    assertSame(a, load(cache, "a", 40)); // a is now the most recently used
    assertEquals(2, loads.get());
    load(cache, "c", 40); // 120 > 100: b, the least recently used, goes
    assertEquals(2, cache.size());
    assertEquals(80, cache.weight());
    assertSame(a, load(cache, "a", 40));
    load(cache, "b", 40);
    assertEquals("b was loaded again", 4, loads.get());
    assertEquals(2, cache.hits());
    assertEquals(4, cache.misses());
  }

  @Test
  public void aValueHeavierThanTheCacheIsReturnedButNotKept() {
    WeightedCache<String, String> cache = new WeightedCache<>(100, 1_000, now::get);
    load(cache, "small", 10);
    assertEquals("big #2", load(cache, "big", 101));
    assertEquals(1, cache.size());
    assertEquals("big #3", load(cache, "big", 101));
  }

  @Test
  public void dropsValuesUnusedForTheIdleTime() {
    WeightedCache<String, String> cache = new WeightedCache<>(100, 1_000, now::get);
    load(cache, "old", 10);
    now.set(600);
    load(cache, "young", 10);
    now.set(1_100); // old was last used 1,100 ns ago, young 500
    load(cache, "other", 10);
    assertEquals(2, cache.size());
    assertEquals(20, cache.weight());
    load(cache, "young", 10);
    assertEquals("young is kept", 3, loads.get());
    cache.clear();
    assertEquals(0, cache.size());
    assertEquals(0, cache.weight());
  }

  @Test
  public void refusesInvalidBounds() {
    assertThrows(IllegalArgumentException.class, () -> new WeightedCache<String, String>(-1, 1, now::get));
    assertThrows(IllegalArgumentException.class, () -> new WeightedCache<String, String>(1, 0, now::get));
  }
}
