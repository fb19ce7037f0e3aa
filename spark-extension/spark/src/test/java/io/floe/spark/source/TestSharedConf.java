package io.floe.spark.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.Test;

public class TestSharedConf {
  private final SharedConf<Object, Object> shared = new SharedConf<>();
  private final AtomicInteger broadcasts = new AtomicInteger();
  private final Supplier<Object> broadcast = () -> "broadcast " + broadcasts.incrementAndGet();

  @Test
  public void reusesTheBroadcastWhileTheEntriesAreTheSame() {
    Object context = new Object();
    Object first = shared.get(context, Map.of("fs.defaultFS", "file:///", "a", "1"), b -> true, broadcast);
    Map<String, String> same = new HashMap<>(Map.of("a", "1", "fs.defaultFS", "file:///"));
    assertSame(first, shared.get(context, same, b -> true, broadcast));
    assertEquals(1, broadcasts.get());
  }

  @Test
  public void broadcastsAgainWhenAnEntryChangesIsAddedOrRemoved() {
    Object context = new Object();
    Object first = shared.get(context, Map.of("a", "1"), b -> true, broadcast);
    Object changed = shared.get(context, Map.of("a", "2"), b -> true, broadcast);
    assertNotSame(first, changed);
    Object added = shared.get(context, Map.of("a", "2", "b", "1"), b -> true, broadcast);
    assertNotSame(changed, added);
    Object removed = shared.get(context, Map.of("a", "2"), b -> true, broadcast);
    assertNotSame(added, removed);
    assertEquals(4, broadcasts.get());
    // the entries the caller passed are copied: changing them later does not change what is kept
    Map<String, String> mutable = new HashMap<>(Map.of("a", "3"));
    Object kept = shared.get(context, mutable, b -> true, broadcast);
    mutable.put("a", "4");
    assertNotSame(kept, shared.get(context, mutable, b -> true, broadcast));
  }

  @Test
  public void broadcastsAgainForAnotherOwnerOrAnUnusableBroadcast() {
    Object first = shared.get("context 1", Map.of("a", "1"), b -> true, broadcast);
    Object other = shared.get("context 2", Map.of("a", "1"), b -> true, broadcast);
    assertNotSame(first, other);
    Object destroyed = shared.get("context 2", Map.of("a", "1"), b -> false, broadcast);
    assertNotSame(other, destroyed);
    assertEquals(3, broadcasts.get());
  }
}
