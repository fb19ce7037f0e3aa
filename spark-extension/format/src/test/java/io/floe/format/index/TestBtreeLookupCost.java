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
    int cold = -1;
    for (Long probe : probes.subList(0, Math.min(5, probes.size()))) {
      IndexFixtures.CountingInputFile file = new IndexFixtures.CountingInputFile(IndexFixtures.IO.newInputFile(where));
      IndexSegmentReader reader = IndexSegmentReader.open("db.t", index, segment, Types.LongType.get(), file);
      MatchingFiles match = reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.equal("l", probe)));
      assertEquals("key " + probe + " is in one file", 1, match.count());
      assertTrue(files + " files: " + reader.directory().pages().size() + " pages", reader.directory().pages().size() > 1);
      // the first probe decodes its page; a later one may find its page decoded already (shared pages)
      assertTrue("no probe costs more than the first", cold < 0 || file.opens.get() <= cold);
      cold = cold < 0 ? file.opens.get() : cold;
    }
    return cold;
  }

  /** A btree segment at {@code where} of {@code files} files, file f holding keys f*1000 .. f*1000+keysPerFile-1. */
  private static IndexSegment writeBlocks(String where, int files, int keysPerFile) {
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 2, Types.LongType.get()).build();
    for (int f = 0; f < files; f++) {
      List<Object> keys = new ArrayList<>();
      for (long k = 0; k < keysPerFile; k++) {
        keys.add(f * 1000 + k);
      }
      writer.add(FileValues.of("file:/data/f" + f + ".parquet", keys));
    }
    return writer.write(IndexFixtures.IO.newOutputFile(where));
  }

  @Test
  public void aSecondReaderOfTheSegmentDecodesNoPageAgain() {
    String where = IndexFixtures.location(temp.getRoot(), "shared.puffin");
    IndexSegment segment = writeBlocks(where, 50, 200);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(segment).build();
    int[] opens = new int[2];
    for (int i = 0; i < 2; i++) {
      IndexFixtures.CountingInputFile file = new IndexFixtures.CountingInputFile(IndexFixtures.IO.newInputFile(where));
      IndexSegmentReader reader = IndexSegmentReader.open("db.t", index, segment, Types.LongType.get(), file);
      MatchingFiles match = reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.equal("l", 7042L)));
      assertEquals(List.of("file:/data/f7.parquet"), match.paths());
      opens[i] = file.opens.get();
    }
    assertEquals("the second reader reads the footer, directory and files blob but not the page", opens[0] - 1,
        opens[1]);
  }

  @Test
  public void aSharedReaderOfAPlannedSegmentReadsNothing() {
    String where = IndexFixtures.location(temp.getRoot(), "planned.puffin");
    IndexSegment segment = writeBlocks(where, 20, 100);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(segment).build();
    int[] opens = new int[3];
    for (int i = 0; i < 3; i++) {
      IndexFixtures.CountingInputFile file = new IndexFixtures.CountingInputFile(IndexFixtures.IO.newInputFile(where));
      IndexSegmentReader reader = i < 2
          ? IndexSegmentReader.openShared("db.t", index, segment, Types.LongType.get(), file)
          : IndexSegmentReader.open("db.t", index, segment, Types.LongType.get(), file);
      MatchingFiles match = reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.equal("l", 3042L)));
      assertEquals(List.of("file:/data/f3.parquet"), match.paths());
      opens[i] = file.opens.get();
    }
    assertTrue("the first shared reader reads the footer, directory, files blob and page: " + opens[0],
        opens[0] >= 4);
    assertEquals("the second shared reader finds all of them decoded", 0, opens[1]);
    assertEquals("a reader that does not share reads the footer, directory and files blob again (not the page)",
        opens[0] - 1, opens[2]);
  }

  @Test
  public void aSharedReaderChecksTheSegmentAsAnyReader() {
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 2, Types.LongType.get()).build();
    writer.add(FileValues.of("file:/data/f0.parquet", List.of(1L, 2L)));
    String where = IndexFixtures.location(temp.getRoot(), "checked.puffin");
    IndexSegment segment = writer.write(IndexFixtures.IO.newOutputFile(where));
    // the index list claims one more covered file than the segment holds
    IndexSegment claimed = new IndexSegment(segment.path(), segment.fileSizeInBytes(), 2, segment.entryCount(),
        segment.snapshotId(), segment.sequenceNumber());
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(claimed).build();
    for (int i = 0; i < 2; i++) {
      IndexSegmentReader reader = IndexSegmentReader.openShared("db.t", index, claimed, Types.LongType.get(),
          IndexFixtures.IO.newInputFile(where));
      IndexException e = org.junit.Assert.assertThrows(IndexException.class,
          () -> reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.equal("l", 1L))));
      assertTrue(e.getMessage(), e.getMessage().contains("by_l") && e.getMessage().contains(where));
    }
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
