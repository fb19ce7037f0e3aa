package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Binder;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.manifest.DataFile;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.puffin.Blob;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.puffin.PuffinWriter;
import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Types;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Coverage in planning, merging segments, and the errors of missing, truncated and corrupt segments. */
public class TestIndexSegments {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static String path(int f) {
    return "file:/t/data/f" + f + ".parquet";
  }

  /** A btree segment on column l covering files [from, to); file f holds keys 100f .. 100f+9. */
  private IndexSegment segment(String name, int from, int to) {
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 2, Types.LongType.get())
        .pageSizeBytes(64).snapshot(from, to).build();
    for (int f = from; f < to; f++) {
      List<Object> keys = new ArrayList<>();
      for (long k = 0; k < 10; k++) {
        keys.add(100L * f + k);
      }
      writer.add(f == from ? FileValues.of(path(f), keys).withNulls() : FileValues.of(path(f), keys));
    }
    return writer.write(IndexFixtures.IO.newOutputFile(IndexFixtures.location(temp.getRoot(), name)));
  }

  private static IndexSegmentReader reader(TableIndex index, IndexSegment segment) {
    return IndexSegmentReader.open("db.t", index, segment, Types.LongType.get(),
        IndexFixtures.IO.newInputFile(segment.path()));
  }

  private static IndexPlanner planner(TableIndex index) {
    return IndexPlanner.of(IndexFixtures.SCHEMA, IndexList.buildFrom(IndexList.empty()).add(index).build(),
        IndexPlanner.SegmentOpener.using(IndexFixtures.IO, "db.t"));
  }

  private static List<FileScanTask> tasks(int count) {
    List<FileScanTask> tasks = new ArrayList<>();
    for (int f = 0; f < count; f++) {
      DataFile file = DataFile.builder(PartitionSpec.unpartitioned()).withPath(path(f)).withFormat("parquet")
          .withRecordCount(10).withFileSizeInBytes(100).build();
      tasks.add(new FileScanTask(file, List.of(), PartitionSpec.unpartitioned(), 1));
    }
    return tasks;
  }

  private static List<String> paths(List<FileScanTask> tasks) {
    return tasks.stream().map(t -> t.file().path()).collect(Collectors.toList());
  }

  @Test
  public void planningPrunesCoveredFilesAndKeepsUncoveredOnes() {
    IndexSegment a = segment("a.puffin", 0, 10);
    IndexSegment b = segment("b.puffin", 10, 15);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(a).addSegment(b).build();
    // 305 is in f3, 1207 in f12; f15..f19 were written by another engine and are not covered
    IndexPlanner.Result result = planner(index).prune(tasks(20), Expressions.in("l", 305L, 1207L, 99_999L));
    assertEquals(List.of(path(3), path(12), path(15), path(16), path(17), path(18), path(19)), paths(result.tasks()));
    assertEquals(List.of(new IndexPlanner.IndexUsage("by_l", 2, 15, 13)), result.usages());
    assertEquals(13, result.prunedFiles());
    assertTrue(result.failures().isEmpty());

    // NOT is pushed into the predicate: not(l < 1400) is l >= 1400, held by f14 and uncovered files
    result = planner(index).prune(tasks(20), Expressions.not(Expressions.lessThan("l", 1400L)));
    assertEquals(List.of(path(14), path(15), path(16), path(17), path(18), path(19)), paths(result.tasks()));
    // IS NULL: f0 and f10 hold nulls
    result = planner(index).prune(tasks(20), Expressions.isNull("l"));
    assertEquals(List.of(path(0), path(10), path(15), path(16), path(17), path(18), path(19)),
        paths(result.tasks()));
  }

  @Test
  public void planningIgnoresIndexesTheFilterDoesNotUse() {
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(segment("a.puffin", 0, 10)).build();
    IndexList list = IndexList.buildFrom(IndexList.empty()).add(index).build();
    IndexPlanner noReads = IndexPlanner.of(IndexFixtures.SCHEMA, list, (idx, segment, type) -> {
      throw new AssertionError("a segment was opened");
    });
    for (Expression filter : List.of(Expressions.alwaysTrue(), Expressions.equal("i", 3),
        Expressions.or(Expressions.equal("l", 305L), Expressions.equal("i", 3)))) {
      IndexPlanner.Result result = noReads.prune(tasks(10), filter);
      assertEquals(filter.toString(), 10, result.tasks().size());
      assertEquals(filter.toString(), List.of(), result.usages());
    }
    // an AND with another column still uses the index
    IndexPlanner.Result result = planner(index).prune(tasks(10),
        Expressions.and(Expressions.equal("l", 305L), Expressions.equal("i", 3)));
    assertEquals(List.of(path(3)), paths(result.tasks()));
  }

  @Test
  public void segmentOfFilesWithoutValuesCoversThem() {
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.INVERTED, 3, Types.StringType.get()).build();
    writer.add(FileValues.of(path(0), List.of()));
    writer.add(FileValues.of(path(1), List.of()).withNulls());
    IndexSegment segment = writer.write(IndexFixtures.IO.newOutputFile(
        IndexFixtures.location(temp.getRoot(), "empty.puffin")));
    assertEquals(0, segment.entryCount());
    TableIndex index = TableIndex.builder("by_s", IndexType.INVERTED, 3).addSegment(segment).build();
    IndexSegmentReader reader = IndexSegmentReader.open("db.t", index, segment, Types.StringType.get(),
        IndexFixtures.IO.newInputFile(segment.path()));
    for (Expression filter : List.of(Expressions.equal("s", "x"), Expressions.startsWith("s", ""),
        Expressions.notNull("s"), Expressions.greaterThan("s", ""))) {
      assertEquals(filter.toString(), List.of(),
          reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), filter)).paths());
    }
    assertEquals(List.of(path(1)),
        reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.isNull("s"))).paths());
    assertEquals(List.of(path(0), path(1)), reader.coveredFiles().paths());
  }

  @Test
  public void planningFallsBackToAFullScanWhenASegmentIsUnreadable() throws Exception {
    IndexSegment a = segment("a.puffin", 0, 10);
    Files.delete(new File(temp.getRoot(), "a.puffin").toPath());
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(a).build();
    IndexPlanner.Result result = planner(index).prune(tasks(10), Expressions.equal("l", 305L));
    assertEquals(10, result.tasks().size());
    assertEquals(1, result.failures().size());
    IndexException e = result.failures().get(0);
    assertEquals("by_l", e.indexName());
    assertEquals("db.t", e.table());
    assertEquals(a.path(), e.location());
    assertTrue(e.getMessage(), e.getMessage().startsWith("Cannot read segment " + a.path() + " of index by_l on "
        + "table db.t") && e.getMessage().contains("rewrite_index"));
  }

  @Test
  public void mergeUnitesSegmentsAndDropsFilesNoLongerLive() {
    IndexSegment a = segment("a.puffin", 0, 10);
    IndexSegment b = segment("b.puffin", 10, 15);
    IndexSegment c = segment("c.puffin", 15, 16);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(a).addSegment(b).addSegment(c)
        .build();
    IndexSegmentMerger.Limits sixFiles = new IndexSegmentMerger.Limits(1_000_000, 6);
    assertEquals("the smallest that fit", List.of(c, b), IndexSegmentMerger.segmentsToMerge(index, 3, sixFiles));
    assertEquals(List.of(c, b, a), IndexSegmentMerger.segmentsToMerge(index, 3, IndexSegmentMerger.Limits.DEFAULT));
    assertEquals("fewer than the minimum", List.of(),
        IndexSegmentMerger.segmentsToMerge(index, 4, IndexSegmentMerger.Limits.DEFAULT));
    assertEquals("only one fits: nothing to merge", List.of(),
        IndexSegmentMerger.segmentsToMerge(index, 2, new IndexSegmentMerger.Limits(1_000_000, 4)));

    assertEquals("merging everything stays within the limits", List.of(List.of(a), List.of(b, c)),
        IndexSegmentMerger.bins(index.segments(), sixFiles));
    assertEquals(List.of(List.of(a, b, c)), IndexSegmentMerger.bins(index.segments(), IndexSegmentMerger.Limits.DEFAULT));

    Set<String> live = Set.of(path(0), path(3), path(10), path(11), path(15));
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 2, Types.LongType.get())
        .pageSizeBytes(64).build();
    IndexSegment merged = IndexSegmentMerger.merge(List.of(reader(index, a), reader(index, b), reader(index, c)),
        live, writer, IndexFixtures.IO.newOutputFile(IndexFixtures.location(temp.getRoot(), "m.puffin")));
    assertEquals(5, merged.coveredFileCount());
    assertEquals(50, merged.entryCount());
    TableIndex after = TableIndex.buildFrom(index).replaceSegments(List.of(a, b, c), merged).build();
    assertEquals(List.of(merged), after.segments());

    IndexSegmentReader m = reader(after, merged);
    assertEquals(live, Set.copyOf(m.coveredFiles().paths()));
    Expression f = Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.in("l", 305L, 405L, 1105L));
    MatchingFiles match = m.lookup(f);
    assertEquals(List.of(path(3), path(11)), match.paths());
    assertTrue("f4 is no longer covered: it may match", match.mayMatch(path(4)));
    assertFalse(match.mayMatch(path(0)));
    Expression nulls = Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.isNull("l"));
    assertEquals(List.of(path(0), path(10), path(15)), sorted(m.lookup(nulls).paths()));
  }

  /** A commit's merge leaves a segment larger than twice the smaller ones picked, until they grow. */
  @Test
  public void mergeLeavesASegmentMuchLargerThanTheSmallOnes() {
    IndexSegment big = segment("big.puffin", 0, 60);
    List<IndexSegment> small = new ArrayList<>();
    TableIndex.Builder builder = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(big);
    for (int f = 60; f < 63; f++) {
      IndexSegment one = segment("small" + f + ".puffin", f, f + 1);
      small.add(one);
      builder.addSegment(one);
    }
    long smallBytes = small.stream().mapToLong(IndexSegment::fileSizeInBytes).sum();
    assertTrue(big.fileSizeInBytes() + " bytes against " + smallBytes,
        big.fileSizeInBytes() > IndexSegmentMerger.MAX_SIZE_OVER_PICKED * smallBytes);
    assertEquals("the small ones only", small,
        IndexSegmentMerger.segmentsToMerge(builder.build(), 4, IndexSegmentMerger.Limits.DEFAULT));

    int f = 63;
    while (IndexSegmentMerger.MAX_SIZE_OVER_PICKED * smallBytes < big.fileSizeInBytes()) {
      IndexSegment one = segment("small" + f + ".puffin", f, f + 1);
      small.add(one);
      builder.addSegment(one);
      smallBytes += one.fileSizeInBytes();
      f++;
    }
    List<IndexSegment> all = new ArrayList<>(small);
    all.add(big);
    assertEquals("the small ones have grown: the large one joins them", all,
        IndexSegmentMerger.segmentsToMerge(builder.build(), 4, IndexSegmentMerger.Limits.DEFAULT));
  }

  /** One small segment does not keep larger ones of one size from merging: the two smallest always go. */
  @Test
  public void aLoneSmallSegmentDoesNotStopTheMerge() {
    IndexSegment tiny = segment("tiny.puffin", 0, 1);
    TableIndex.Builder builder = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(tiny);
    List<IndexSegment> all = new ArrayList<>(List.of(tiny));
    for (int f = 1; f < 61; f += 20) {
      IndexSegment larger = segment("larger" + f + ".puffin", f, f + 20);
      assertTrue(larger.fileSizeInBytes() + " bytes against " + tiny.fileSizeInBytes(),
          larger.fileSizeInBytes() > IndexSegmentMerger.MAX_SIZE_OVER_PICKED * tiny.fileSizeInBytes());
      all.add(larger);
      builder.addSegment(larger);
    }
    List<IndexSegment> picked = IndexSegmentMerger.segmentsToMerge(builder.build(), 4,
        IndexSegmentMerger.Limits.DEFAULT);
    assertEquals("every segment, smallest first", tiny, picked.get(0));
    assertEquals(Set.copyOf(all), Set.copyOf(picked));
    assertEquals(all.size(), picked.size());
  }

  private static List<String> sorted(List<String> in) {
    List<String> out = new ArrayList<>(in);
    out.sort(null);
    return out;
  }

  private IndexException lookupError(TableIndex index, IndexSegment segment) {
    return assertThrows(IndexException.class, () -> reader(index, segment)
        .lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), Expressions.equal("l", 305L))));
  }

  @Test
  public void truncatedSegmentIsAnErrorNamingIndexTableAndFile() throws Exception {
    IndexSegment a = segment("a.puffin", 0, 10);
    File file = new File(temp.getRoot(), "a.puffin");
    byte[] bytes = Files.readAllBytes(file.toPath());
    Files.write(file.toPath(), Arrays.copyOf(bytes, bytes.length - 20));
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(a).build();
    IndexException e = lookupError(index, a);
    assertTrue(e.getMessage(), e.getMessage().contains(a.path()) && e.getMessage().contains("index by_l")
        && e.getMessage().contains("table db.t"));
  }

  @Test
  public void corruptPageIsAnError() throws Exception {
    IndexSegment a = segment("a.puffin", 0, 10);
    File file = new File(temp.getRoot(), "a.puffin");
    PuffinReader puffin = Puffin.read(IndexFixtures.IO.newInputFile(a.path())).build();
    BlobMetadata pages = puffin.fileMetadata().blobs().stream()
        .filter(blob -> blob.type().equals(IndexBlobTypes.PAGES)).findFirst().get();
    byte[] bytes = Files.readAllBytes(file.toPath());
    for (long i = pages.offset(); i < pages.offset() + pages.length(); i++) {
      bytes[(int) i] ^= 0x5A; // scramble every page
    }
    Files.write(file.toPath(), bytes);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(a).build();
    IndexException e = lookupError(index, a);
    assertTrue(e.getMessage(), e.getMessage().startsWith("Invalid segment " + a.path() + " of index by_l on table "
        + "db.t: page"));
  }

  @Test
  public void unknownBlobTypeIsAnError() throws Exception {
    IndexSegment a = segment("a.puffin", 0, 10);
    PuffinReader source = Puffin.read(IndexFixtures.IO.newInputFile(a.path())).build();
    String copy = IndexFixtures.location(temp.getRoot(), "copy.puffin");
    long size;
    try (PuffinWriter writer = Puffin.write(IndexFixtures.IO.newOutputFile(copy)).build()) {
      for (BlobMetadata blob : source.fileMetadata().blobs()) {
        writer.copy(blob, source.readRange(blob.offset(), (int) blob.length()), blob.properties());
      }
      writer.add(Blob.of("floe-index-bloom-v9", List.of(2), 1, 1, new byte[] {1, 2, 3}));
      writer.finish();
      size = writer.fileSize();
    }
    IndexSegment withExtra = new IndexSegment(copy, size, a.coveredFileCount(), a.entryCount(), 1, 1);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(withExtra).build();
    IndexException e = lookupError(index, withExtra);
    assertTrue(e.getMessage(), e.getMessage().contains("floe-index-bloom-v9 (written by a newer Floe?)"));
  }

  @Test
  public void segmentOfAnotherTypeOrCountIsAnError() {
    IndexSegment a = segment("a.puffin", 0, 10);
    TableIndex inverted = TableIndex.builder("by_l", IndexType.INVERTED, 2).addSegment(a).build();
    IndexException e = lookupError(inverted, a);
    assertTrue(e.getMessage(), e.getMessage().contains("expected index type inverted, found btree"));
    IndexSegment wrongCount = new IndexSegment(a.path(), a.fileSizeInBytes(), 11, a.entryCount(), 0, 0);
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(wrongCount).build();
    e = lookupError(index, wrongCount);
    assertTrue(e.getMessage(), e.getMessage().contains("11 files (as the index list says)"));
  }

  @Test
  public void unsupportedKeyTypesAreRefused() {
    assertFalse(TableIndex.supports(Types.DoubleType.get()));
    assertFalse(TableIndex.supports(Types.StructType.of(Types.NestedField.optional(1, "x", Types.LongType.get()))));
    assertTrue(TableIndex.supports(Types.TimestampType.withoutZone()));
    IndexException e = IndexErrors.unsupportedType("db.t", "by_x", "x", Types.DoubleType.get());
    assertTrue(e.getMessage(), e.getMessage().contains("type double is not supported"));
    assertThrows(IllegalArgumentException.class,
        () -> IndexSegmentWriter.builder(IndexType.BTREE, 1, Types.FloatType.get()));
  }
}
