package io.floe.format.catalog;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class TestRootMove {
  private final RootMove move = new RootMove("file:///w/db/t", "file:///w/other/renamed");

  @Test
  public void everySpellingOfALocalRootMovesToTheCatalogsSpelling() {
    for (String old : new String[] {"file:///w/db/t", "file:/w/db/t", "file://localhost/w/db/t", "/w/db/t"}) {
      assertEquals(old, "file:///w/other/renamed/data/a.parquet", move.apply(old + "/data/a.parquet"));
      assertEquals(old, "file:///w/other/renamed", move.apply(old));
      assertTrue(old, move.moves(old + "/metadata/snap-1.avro"));
    }
  }

  @Test
  public void otherLocationsStay() {
    for (String other : new String[] {"file:///w/db/t2/data/a.parquet", "file:///w/db/a.parquet",
        "file:///elsewhere/t/data/a.parquet", "s3://bucket/w/db/t/data/a.parquet", "file:///w/db/tt"}) {
      assertEquals(other, move.apply(other));
      assertFalse(other, move.moves(other));
    }
    assertNull(move.apply(null));
  }

  @Test
  public void boundsTellWhetherAColumnMayHoldAMovedPath() {
    assertTrue(move.mayHoldMoved(null, "file:///z"));
    assertTrue(move.mayHoldMoved("file:///w/db/t/data/a", "file:///w/db/t/data/a"));
    assertTrue(move.mayHoldMoved("file:///a", "file:///z"));
    assertTrue("file:/ spelling", move.mayHoldMoved("file:/w/db/t/data/a", "file:/w/db/t/data/b"));
    assertFalse(move.mayHoldMoved("file:///w/db/t2/a", "file:///w/db/t3/a"));
    assertFalse(move.mayHoldMoved("file:///elsewhere/a", "file:///elsewhere/z"));
    assertFalse("the root itself is no file below it", move.mayHoldMoved("file:///w/db/t", "file:///w/db/t"));
  }
}
