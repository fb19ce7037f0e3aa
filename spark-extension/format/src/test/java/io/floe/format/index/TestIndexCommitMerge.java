package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.expr.Binder;
import io.floe.format.expr.Expressions;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.metadata.TableProperty;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.types.Types;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A data commit merges an index's segments once it holds floe.index.min-segments-to-merge of them:
 * in the same commit, within the merge limits, dropping files the new snapshot no longer lists,
 * and never failing the data commit.
 */
public class TestIndexCommitMerge {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations table(int minSegmentsToMerge) {
    FileSystemTableOperations ops = IndexFixtures.newTable(temp.getRoot());
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE,
        Integer.toString(minSegmentsToMerge))).build());
    IndexListCommit.commit(ops, "db.t", (current, latest) ->
        IndexList.buildFrom(current).add(TableIndex.builder("by_id", IndexType.BTREE, 1).build()).build());
    return ops;
  }

  private static DataFile file(TableMetadata base, String name) {
    return DataFile.builder(base.spec()).withPath(base.location() + "/data/" + name)
        .withFormat(FileFormat.PARQUET).withRecordCount(2).withFileSizeInBytes(10)
        .withMetrics(Metrics.empty(2)).build();
  }

  private static String path(FileSystemTableOperations ops, String name) {
    return ops.refresh().location() + "/data/" + name;
  }

  /** Commits {@code producer}, which adds file {@code name} holding {@code values} in field 1, with index sync. */
  private static void commitWithSync(FileSystemTableOperations ops, SnapshotProducer producer, String name,
      List<Object> values, IndexSegmentMerger.Limits limits) {
    producer.amendMetadata(new IndexSync(ops.io(), "db.t", ops.metadataRoot() + "/metadata",
        Map.of(1, List.of(FileValues.of(path(ops, name), values))), limits)).commit();
  }

  private static void append(FileSystemTableOperations ops, String name, long... values) {
    List<Object> boxed = new ArrayList<>();
    for (long v : values) {
      boxed.add(v);
    }
    commitWithSync(ops, new AppendFiles(ops).appendFile(file(ops.refresh(), name)), name, boxed,
        IndexSegmentMerger.Limits.DEFAULT);
  }

  private static TableIndex index(FileSystemTableOperations ops) {
    return IndexListFiles.read(ops.io(), "db.t", ops.refresh().properties()).index("by_id");
  }

  private static Set<String> covered(FileSystemTableOperations ops) {
    TableIndex index = index(ops);
    Set<String> paths = new HashSet<>();
    for (IndexSegment s : index.segments()) {
      paths.addAll(IndexSegmentReader.open("db.t", index, s, Types.LongType.get(), ops.io().newInputFile(s.path()))
          .coveredFiles().paths());
    }
    return paths;
  }

  private static List<String> matching(FileSystemTableOperations ops, long value) {
    TableIndex index = index(ops);
    List<String> out = new ArrayList<>();
    for (IndexSegment s : index.segments()) {
      out.addAll(IndexSegmentReader.open("db.t", index, s, Types.LongType.get(), ops.io().newInputFile(s.path()))
          .lookup(Binder.bind(ops.refresh().schema().asStruct(), Expressions.equal("id", value))).paths());
    }
    return out;
  }

  @Test
  public void commitMergesTheSegmentsOnceTheIndexHoldsTheMinimum() {
    FileSystemTableOperations ops = table(3);
    append(ops, "a.parquet", 1L, 2L);
    append(ops, "b.parquet", 3L);
    assertEquals(2, index(ops).segments().size());
    append(ops, "c.parquet", 4L, 5L);
    TableIndex merged = index(ops);
    assertEquals("the third segment triggers the merge", 1, merged.segments().size());
    IndexSegment segment = merged.segments().get(0);
    assertEquals(3, segment.coveredFileCount());
    assertEquals(5, segment.entryCount());
    assertEquals(ops.refresh().currentSnapshot().snapshotId(), segment.snapshotId());
    assertEquals(3, ops.refresh().snapshots().size()); // merged in the data commits: no extra snapshot
    assertEquals(List.of(path(ops, "b.parquet")), matching(ops, 3L));
    assertEquals(List.of(), matching(ops, 9L));
    append(ops, "d.parquet", 6L);
    assertEquals(2, index(ops).segments().size());
  }

  @Test
  public void mergeDropsFilesTheNewSnapshotNoLongerLists() {
    FileSystemTableOperations ops = table(2);
    append(ops, "a.parquet", 1L); // one segment
    commitWithSync(ops, new OverwriteFiles(ops).deleteFile(path(ops, "a.parquet"))
        .addFile(file(ops.refresh(), "b.parquet")), "b.parquet", List.of(1L, 2L), IndexSegmentMerger.Limits.DEFAULT);
    assertEquals(1, index(ops).segments().size());
    assertEquals(Set.of(path(ops, "b.parquet")), covered(ops));
    assertEquals(List.of(path(ops, "b.parquet")), matching(ops, 1L));
  }

  @Test
  public void segmentsCoveringOnlyRemovedFilesAreDroppedWithoutAMergedFile() {
    FileSystemTableOperations ops = table(3);
    append(ops, "a.parquet", 1L);
    append(ops, "b.parquet", 2L);
    TableMetadata base = ops.refresh();
    // replaces a and b with three files in one commit: its own segment covers 3 files, over the limit of 2
    OverwriteFiles overwrite = new OverwriteFiles(ops).deleteFile(path(ops, "a.parquet"))
        .deleteFile(path(ops, "b.parquet"));
    List<FileValues> values = new ArrayList<>();
    for (String name : List.of("c1.parquet", "c2.parquet", "c3.parquet")) {
      overwrite.addFile(file(base, name));
      values.add(FileValues.of(path(ops, name), List.of(3L)));
    }
    overwrite.amendMetadata(new IndexSync(ops.io(), "db.t", ops.metadataRoot() + "/metadata", Map.of(1, values),
        new IndexSegmentMerger.Limits(1_000_000, 2))).commit();
    assertEquals("a's and b's segments are dropped, c's stays", 1, index(ops).segments().size());
    assertEquals(Set.of(path(ops, "c1.parquet"), path(ops, "c2.parquet"), path(ops, "c3.parquet")), covered(ops));
    assertEquals("no merged file was written", 3, Objects.requireNonNull(segmentFolder().list()).length);
  }

  @Test
  public void mergeKeepsWithinItsLimits() {
    FileSystemTableOperations ops = table(2);
    append(ops, "a.parquet", 1L, 2L, 3L);
    IndexSegmentMerger.Limits twoEntries = new IndexSegmentMerger.Limits(2, 1000);
    commitWithSync(ops, new AppendFiles(ops).appendFile(file(ops.refresh(), "b.parquet")), "b.parquet",
        List.of(4L), twoEntries);
    assertEquals("3 + 1 entries pass the limit of 2: no merge", 2, index(ops).segments().size());
    commitWithSync(ops, new AppendFiles(ops).appendFile(file(ops.refresh(), "c.parquet")), "c.parquet",
        List.of(5L), twoEntries);
    assertEquals("b's and c's segments (1 entry each) merge; a's stays", 2, index(ops).segments().size());
    assertEquals(3, covered(ops).size());
  }

  @Test
  public void failedMergeLeavesTheSegmentsAndTheDataCommits() throws Exception {
    FileSystemTableOperations ops = table(3);
    append(ops, "a.parquet", 1L);
    append(ops, "b.parquet", 2L);
    Files.delete(new File(java.net.URI.create(index(ops).segments().get(0).path())).toPath());
    append(ops, "c.parquet", 3L);
    assertEquals(3, ops.refresh().snapshots().size());
    assertEquals("the new segment is added, nothing merged", 3, index(ops).segments().size());
    TableIndex index = index(ops);
    IndexSegment newest = index.segments().get(2);
    assertEquals(List.of(path(ops, "c.parquet")), IndexSegmentReader.open("db.t", index, newest,
        Types.LongType.get(), ops.io().newInputFile(newest.path())).coveredFiles().paths());
    assertEquals("no merged segment left behind", 2, Objects.requireNonNull(segmentFolder().list()).length);
  }

  /** Two indexes due in one commit both merge; one whose merge fails on a corrupt page keeps its segments alone. */
  @Test
  public void indexesDueTogetherMergeAndFailAlone() throws Exception {
    FileSystemTableOperations ops = table(3);
    IndexListCommit.commit(ops, "db.t", (current, latest) ->
        IndexList.buildFrom(current).add(TableIndex.builder("by_id_inv", IndexType.INVERTED, 1).build()).build());
    append(ops, "a.parquet", 1L, 2L);
    append(ops, "b.parquet", 3L);
    append(ops, "c.parquet", 4L, 5L);
    IndexList list = IndexListFiles.read(ops.io(), "db.t", ops.refresh().properties());
    for (String name : List.of("by_id", "by_id_inv")) {
      assertEquals(name + " merged in the third commit", 1, list.index(name).segments().size());
      assertEquals(name, 3, list.index(name).segments().get(0).coveredFileCount());
    }
    assertEquals(List.of(path(ops, "b.parquet")), matching(ops, 3L));

    append(ops, "d.parquet", 6L);
    IndexSegment damaged = IndexListFiles.read(ops.io(), "db.t", ops.refresh().properties()).index("by_id_inv")
        .segments().get(1);
    File file = new File(java.net.URI.create(damaged.path()));
    PuffinReader puffin = Puffin.read(ops.io().newInputFile(damaged.path())).build();
    BlobMetadata pages = puffin.fileMetadata().blobs().stream().filter(b -> b.type().equals(IndexBlobTypes.PAGES))
        .findFirst().orElseThrow();
    byte[] bytes = Files.readAllBytes(file.toPath());
    for (long i = pages.offset(); i < pages.offset() + pages.length(); i++) {
      bytes[(int) i] ^= 0x5A;
    }
    Files.write(file.toPath(), bytes);
    int invFiles = Objects.requireNonNull(new File(file.getParentFile().getPath()).list()).length;
    append(ops, "e.parquet", 7L); // the third segment of each: both due
    list = IndexListFiles.read(ops.io(), "db.t", ops.refresh().properties());
    assertEquals("by_id merged its three segments", 1, list.index("by_id").segments().size());
    assertEquals(5, list.index("by_id").segments().get(0).coveredFileCount());
    assertEquals(List.of(path(ops, "e.parquet")), matching(ops, 7L));
    assertEquals("by_id_inv kept its segments and added the new one", 3, list.index("by_id_inv").segments().size());
    assertEquals("no merged by_id_inv file left behind", invFiles + 1,
        Objects.requireNonNull(file.getParentFile().list()).length);
    assertEquals(5, ops.refresh().snapshots().size());
  }

  @Test
  public void invalidMinimumInThePropertiesSkipsTheMergeButNotTheCommit() {
    FileSystemTableOperations ops = table(2);
    TableMetadata base = ops.refresh();
    ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE,
        "many")).build()); // another engine can set anything
    append(ops, "a.parquet", 1L);
    append(ops, "b.parquet", 2L);
    assertEquals(2, index(ops).segments().size());
  }

  @Test
  public void propertyIsValidatedLikeEveryKnownProperty() {
    TableProperty bad = TableProperties.firstInvalid(Map.of(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE, "1"));
    assertNotNull(bad);
    assertEquals(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE, bad.key());
    assertNotNull(TableProperties.firstInvalid(Map.of(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE, "x")));
    assertNull(TableProperties.firstInvalid(Map.of(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE, "2")));
    assertEquals(16, TableProperties.intValue(Map.of(), TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE));
    assertTrue(TableProperties.all().contains(TableProperties.known(TableProperties.INDEX_MIN_SEGMENTS_TO_MERGE)));
    assertFalse(bad.accepts("0"));
  }

  private File segmentFolder() {
    return new File(temp.getRoot(), "db/t/metadata/_floe_indexes/by_id");
  }
}
