package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Binder;
import io.floe.format.expr.Expressions;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A btree point lookup reads the footer, the directory, the files blob and one page, whatever the
 * number of keys: the same number of reads for 10 thousand and 1 million keys.
 */
public class TestBtreeLookupCost {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private int opensForLookup(int files, int keysPerFile, long probeSeed) {
    Random rnd = new Random(42);
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 2, Types.LongType.get()).build();
    List<Long> probes = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      List<Object> keys = new ArrayList<>(keysPerFile);
      for (int k = 0; k < keysPerFile; k++) {
        long key = rnd.nextLong();
        keys.add(key);
        if (rnd.nextInt(files * keysPerFile / 10) == 0) {
          probes.add(key);
        }
      }
      writer.add(FileValues.of("file:/data/f" + f + ".parquet", keys));
    }
    String where = IndexFixtures.location(temp.getRoot(), files + ".puffin");
    IndexSegment segment = writer.write(IndexFixtures.IO.newOutputFile(where));
    assertEquals((long) files * keysPerFile, segment.entryCount());
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(segment).build();
    int opens = -1;
    for (Long probe : probes.subList(0, Math.min(5, probes.size()))) {
      IndexFixtures.CountingInputFile file = new IndexFixtures.CountingInputFile(IndexFixtures.IO.newInputFile(where));
      IndexSegmentReader reader = IndexSegmentReader.open("db.t", index, segment, Types.LongType.get(), file);
      MatchingFiles match = reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.equal("l", probe)));
      assertEquals("key " + probe + " is in one file", 1, match.count());
      assertTrue(files + " files: " + reader.directory().pages().size() + " pages", reader.directory().pages().size() > 1);
      assertTrue("same cost for every probe", opens < 0 || opens == file.opens.get());
      opens = file.opens.get();
    }
    return opens;
  }

  @Test
  public void pointLookupCostDoesNotGrowWithKeys() {
    int small = opensForLookup(100, 100, 1);
    int large = opensForLookup(1000, 1000, 2);
    assertEquals("reads for 10k keys vs 1M keys", small, large);
    // footer (magic + tail), directory, files, one page
    assertTrue("at most 5 reads, found " + large, large <= 5);
  }
}
