package io.floe.format.index;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A merge of segments writes, byte for byte, the segment that one writer writes from what the live
 * files of those segments hold: the same keys, files, ordinals, nulls and pages, for every key type
 * and both index types.
 */
public class TestSegmentMerge {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private int names;

  private String newLocation() {
    return IndexFixtures.location(temp.getRoot(), "s" + names++ + ".puffin");
  }

  private static IndexSegmentWriter writer(IndexType type, Type keyType, int pageSize) {
    return IndexSegmentWriter.builder(type, 7, keyType).pageSizeBytes(pageSize).snapshot(3, 4).build();
  }

  private static byte[] bytes(IndexSegment segment) throws Exception {
    return Files.readAllBytes(new File(java.net.URI.create(segment.path())).toPath());
  }

  /** What one data file holds in one segment (a class: Gradle 4's test scan cannot read records). */
  private static final class Held {
    private final String path;
    private final List<Object> values;
    private final boolean nulls;

    Held(String path, List<Object> values, boolean nulls) {
      this.path = path;
      this.values = values;
      this.nulls = nulls;
    }

    String path() {
      return path;
    }

    List<Object> values() {
      return values;
    }

    boolean nulls() {
      return nulls;
    }
  }

  @Test
  public void mergeWritesTheSegmentOfTheLiveFilesUnionByteForByte() throws Exception {
    Random rnd = new Random(5);
    int merges = 0;
    for (int fieldId : IndexFixtures.FIELD_IDS) {
      Type keyType = IndexFixtures.SCHEMA.findType(fieldId);
      for (IndexType type : IndexType.values()) {
        for (int trial = 0; trial < 4; trial++) {
          List<Object> domain = IndexFixtures.domain(keyType, rnd, 80);
          int pageSize = 32 + rnd.nextInt(400);
          List<List<Held>> segments = new ArrayList<>();
          List<String> paths = new ArrayList<>();
          for (int s = 1 + rnd.nextInt(5); s > 0; s--) {
            List<Held> files = new ArrayList<>();
            for (int f = rnd.nextInt(6); f >= 0; f--) {
              // now and then a file another segment covers too: the merge holds the values of both
              String path = !paths.isEmpty() && rnd.nextInt(5) == 0 ? paths.get(rnd.nextInt(paths.size()))
                  : "file:/t/data/f" + paths.size() + ".parquet";
              if (files.stream().anyMatch(held -> held.path().equals(path))) {
                continue;
              }
              paths.add(path);
              List<Object> values = new ArrayList<>();
              for (int v = rnd.nextInt(30); v > 0; v--) {
                values.add(domain.get(rnd.nextInt(domain.size())));
              }
              files.add(new Held(path, values, rnd.nextInt(4) == 0));
            }
            segments.add(files);
          }
          Set<String> live = trial == 0 ? null : new LinkedHashSet<>();
          for (String path : paths) {
            if (live != null && rnd.nextInt(4) != 0) {
              live.add(path);
            }
          }

          List<IndexSegmentReader> readers = new ArrayList<>();
          TableIndex.Builder index = TableIndex.builder("by_k", type, fieldId);
          List<IndexSegment> written = new ArrayList<>();
          Map<String, List<Object>> union = new LinkedHashMap<>();
          Set<String> withNulls = new LinkedHashSet<>();
          for (List<Held> files : segments) {
            IndexSegmentWriter writer = writer(type, keyType, 32 + rnd.nextInt(400));
            for (Held held : files) {
              FileValues values = FileValues.of(held.path(), held.values());
              writer.add(held.nulls() ? values.withNulls() : values);
              if (live == null || live.contains(held.path())) {
                union.computeIfAbsent(held.path(), p -> new ArrayList<>()).addAll(held.values());
                if (held.nulls()) {
                  withNulls.add(held.path());
                }
              }
            }
            IndexSegment segment = writer.write(IndexFixtures.IO.newOutputFile(newLocation()));
            written.add(segment);
            index.addSegment(segment);
          }
          TableIndex table = index.build();
          for (IndexSegment segment : written) {
            readers.add(IndexSegmentReader.open("db.t", table, segment, keyType,
                IndexFixtures.IO.newInputFile(segment.path())));
          }
          IndexSegment merged = IndexSegmentMerger.merge(readers, live, writer(type, keyType, pageSize),
              IndexFixtures.IO.newOutputFile(newLocation()));

          IndexSegmentWriter expected = writer(type, keyType, pageSize);
          union.forEach((path, values) -> {
            FileValues file = FileValues.of(path, values);
            expected.add(withNulls.contains(path) ? file.withNulls() : file);
          });
          IndexSegment one = expected.write(IndexFixtures.IO.newOutputFile(newLocation()));
          String what = keyType + " " + type + " trial " + trial;
          assertEquals(what, one.entryCount(), merged.entryCount());
          assertEquals(what, one.coveredFileCount(), merged.coveredFileCount());
          assertArrayEquals(what, bytes(one), bytes(merged));
          merges++;
        }
      }
    }
    assertEquals(IndexFixtures.FIELD_IDS.length * 2 * 4, merges);
  }

  @Test
  public void keysAddedOutOfOrderAreAnError() {
    IndexSegmentWriter strings = writer(IndexType.INVERTED, Types.StringType.get(), 64);
    int file = strings.cover("file:/t/data/f0.parquet");
    strings.addInOrder("b", new int[] {file}, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> strings.addInOrder("a", new int[] {file}, 1));
    assertEquals("Index keys out of order: a after b", e.getMessage());
    assertThrows("a key twice is out of order too", IllegalArgumentException.class,
        () -> strings.addInOrder("b", new int[] {file}, 1));
    e = assertThrows(IllegalArgumentException.class, () -> strings.addInOrder(5, new int[] {file}, 1));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Invalid value for an index key of type string: 5"));

    IndexSegmentWriter longs = writer(IndexType.BTREE, Types.LongType.get(), 64);
    int other = longs.cover("file:/t/data/f1.parquet");
    longs.addInOrder(5L, new int[] {other}, 1);
    e = assertThrows(IllegalArgumentException.class, () -> longs.addInOrder(-5L, new int[] {other}, 1));
    assertTrue(e.getMessage(), e.getMessage().contains("-5 after 5"));
  }
}
