package io.floe.format.index;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Binder;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@link IndexSegmentWriter#addIntegral}: the unboxed way an index build adds integral keys writes
 * the very segment {@link IndexSegmentWriter#add} writes for the boxed values, and lookups find it.
 */
public class TestIntegralSegmentWriter {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private static String path(int f) {
    return "file:/t/data/f" + f + ".parquet";
  }

  /** Per file: unsorted values with duplicates, negatives and the type's extremes; file 0 holds a null. */
  private static long[][] fileValues(boolean ints, int files, Random rnd) {
    long[][] out = new long[files][];
    for (int f = 0; f < files; f++) {
      long[] values = new long[50];
      for (int i = 0; i < values.length; i++) {
        values[i] = ints ? rnd.nextInt(400) - 200 : rnd.nextLong() >> rnd.nextInt(64);
      }
      values[0] = ints ? Integer.MIN_VALUE : Long.MIN_VALUE;
      values[1] = ints ? Integer.MAX_VALUE : Long.MAX_VALUE;
      values[2] = values[3]; // a duplicate within the file
      out[f] = values;
    }
    return out;
  }

  private byte[] write(IndexType type, Type keyType, long[][] files, boolean unboxed, String name) throws Exception {
    String[] paths = new String[files.length];
    for (int f = 0; f < files.length; f++) {
      paths[f] = path(f);
    }
    return write(type, keyType, paths, files, unboxed, name);
  }

  /** Adds {@code files[f]} as the values of {@code paths[f]} (a path may repeat); the first holds a null too. */
  private byte[] write(IndexType type, Type keyType, String[] paths, long[][] files, boolean unboxed, String name)
      throws Exception {
    boolean ints = keyType.typeId() == Type.TypeID.INTEGER || keyType.typeId() == Type.TypeID.DATE;
    IndexSegmentWriter writer = IndexSegmentWriter.builder(type, 2, keyType).pageSizeBytes(256).snapshot(1, 1).build();
    for (int f = 0; f < files.length; f++) {
      if (unboxed) {
        writer.addIntegral(paths[f], files[f], f == 0);
      } else {
        List<Object> boxed = new ArrayList<>();
        for (long v : files[f]) {
          boxed.add(ints ? (Object) (int) v : (Object) v);
        }
        FileValues values = FileValues.of(paths[f], boxed);
        writer.add(f == 0 ? values.withNulls() : values);
      }
    }
    String location = IndexFixtures.location(temp.getRoot(), name);
    writer.write(IndexFixtures.IO.newOutputFile(location));
    return Files.readAllBytes(Path.of(java.net.URI.create(location)));
  }

  @Test
  public void unboxedIntegralKeysWriteTheSameSegmentAsBoxedOnes() throws Exception {
    Random rnd = new Random(7);
    int n = 0;
    for (Type keyType : List.of(Types.LongType.get(), Types.IntegerType.get(), Types.DateType.get(),
        Types.TimestampType.withZone(), Types.TimestampType.withoutZone())) {
      for (IndexType type : IndexType.values()) {
        boolean ints = keyType.typeId() == Type.TypeID.INTEGER || keyType.typeId() == Type.TypeID.DATE;
        long[][] files = fileValues(ints, 20, rnd);
        byte[] boxed = write(type, keyType, files, false, "boxed" + n + ".puffin");
        byte[] unboxed = write(type, keyType, files, true, "unboxed" + n + ".puffin");
        n++;
        assertArrayEquals(keyType + " " + type, boxed, unboxed);
      }
    }
  }

  /**
   * The bytes of segments of many keys (pages of the default size; keys held by one file and by
   * several; both types) are pinned: a faster writer must write the very same blobs. The digests
   * were taken from the writer of 2026-11-29 before its page entries were written without a bitmap
   * and a key array per entry (first of the whole files, which the new writer matched; then of
   * their blobs, as here). They cover the file up to its Puffin footer (which names the Floe
   * version that wrote it); the blobs hold zstd frames, so a zstd library that compresses
   * differently would change them too (the pages' decoded content is checked by the other tests).
   */
  @Test
  public void largeSegmentsKeepTheirBytes() throws Exception {
    Random rnd = new Random(29);
    long[][] files = new long[40][];
    for (int f = 0; f < files.length; f++) {
      files[f] = new long[5_000];
      for (int i = 0; i < files[f].length; i++) {
        // scattered 62-bit keys, some shared by several files, a few repeated within a file
        files[f][i] = rnd.nextInt(10) == 0 ? rnd.nextInt(2_000) : rnd.nextLong() >>> 2;
      }
    }
    java.util.Map<String, String> digests = new java.util.LinkedHashMap<>();
    for (IndexType type : IndexType.values()) {
      IndexSegmentWriter writer = IndexSegmentWriter.builder(type, 2, Types.LongType.get()).snapshot(1, 1).build();
      for (int f = 0; f < files.length; f++) {
        writer.addIntegral(path(f), files[f], f % 7 == 0);
      }
      String location = IndexFixtures.location(temp.getRoot(), "large-" + type + ".puffin");
      writer.write(IndexFixtures.IO.newOutputFile(location));
      byte[] file = Files.readAllBytes(Path.of(java.net.URI.create(location)));
      // magic, blobs | magic, footer payload, int32 LE payload size, int32 flags, magic
      int payload = java.nio.ByteBuffer.wrap(file, file.length - 12, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
      byte[] blobs = java.util.Arrays.copyOf(file, file.length - 12 - payload - 4);
      digests.put(type.typeName(), java.util.HexFormat.of().formatHex(
          java.security.MessageDigest.getInstance("SHA-256").digest(blobs)) + " " + blobs.length);
    }
    assertEquals(java.util.Map.of(
        "btree", "654513742b898af95b9aa8183e13b50b22dc05e10286bd45a51ee42c25355cbe 1741092",
        "inverted", "5ac718f917e5b8cf578fbc22f1c428d28dfaf8870b692cb80cab0aa23d283d89 1526720"), digests);
  }

  /**
   * Files whose values arrive sorted, as an index build gathers them (the writer merges them
   * instead of sorting): the same segment as the boxed values, whose order the writer sorts.
   */
  @Test
  public void sortedRunsWriteTheSameSegmentAsBoxedValues() throws Exception {
    Random rnd = new Random(17);
    int n = 0;
    for (Type keyType : List.of(Types.LongType.get(), Types.IntegerType.get())) {
      for (IndexType type : IndexType.values()) {
        boolean ints = keyType.typeId() == Type.TypeID.INTEGER;
        long[][] files = fileValues(ints, 30, rnd);
        for (long[] values : files) {
          java.util.Arrays.sort(values);
        }
        files[3] = new long[0]; // a file without values
        byte[] boxed = write(type, keyType, files, false, "sorted-boxed" + n + ".puffin");
        byte[] merged = write(type, keyType, files, true, "sorted-merged" + n + ".puffin");
        n++;
        assertArrayEquals(keyType + " " + type, boxed, merged);
      }
    }
  }

  /** A file added twice (its keys in two runs) holds the keys of both, as with boxed values. */
  @Test
  public void aFileAddedTwiceInSortedRunsHoldsBothRunsKeys() throws Exception {
    long[][] runs = {{1, 5}, {1}, {1, 3}};
    String[] paths = {path(0), path(1), path(0)};
    for (IndexType type : IndexType.values()) {
      byte[] boxed = write(type, Types.LongType.get(), paths, runs, false, "twice-boxed-" + type + ".puffin");
      byte[] merged = write(type, Types.LongType.get(), paths, runs, true, "twice-merged-" + type + ".puffin");
      assertArrayEquals(type.toString(), boxed, merged);
    }
  }

  @Test
  public void lookupsFindUnboxedKeysInSignedOrder() {
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 2, Types.LongType.get())
        .pageSizeBytes(64).snapshot(1, 1).build();
    writer.addIntegral(path(0), new long[] {5, -3, Long.MIN_VALUE, 5}, false);
    writer.addIntegral(path(1), new long[] {-3, 1L << 40}, true);
    writer.addIntegral(path(2), new long[] {}, false);
    IndexSegment segment = writer.write(IndexFixtures.IO.newOutputFile(
        IndexFixtures.location(temp.getRoot(), "l.puffin")));
    assertEquals(4, segment.entryCount());
    TableIndex index = TableIndex.builder("by_l", IndexType.BTREE, 2).addSegment(segment).build();
    IndexSegmentReader reader = IndexSegmentReader.open("db.t", index, segment, Types.LongType.get(),
        IndexFixtures.IO.newInputFile(segment.path()));
    assertEquals(List.of(path(0), path(1)), paths(reader, Expressions.equal("l", -3L)));
    assertEquals(List.of(path(0)), paths(reader, Expressions.equal("l", 5L)));
    assertEquals(List.of(), paths(reader, Expressions.equal("l", 4L)));
    assertEquals(List.of(path(0)), paths(reader, Expressions.lessThan("l", -3L)));
    assertEquals(List.of(path(1)), paths(reader, Expressions.greaterThan("l", 5L)));
    assertEquals(List.of(path(1)), paths(reader, Expressions.isNull("l")));
    assertEquals(List.of(path(0), path(1), path(2)), reader.coveredFiles().paths());
  }

  private static List<String> paths(IndexSegmentReader reader, Expression filter) {
    return reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), filter)).paths();
  }

  @Test
  public void addIntegralRefusesOtherKeyTypesAndIntOverflow() {
    IndexSegmentWriter strings = IndexSegmentWriter.builder(IndexType.BTREE, 3, Types.StringType.get()).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> strings.addIntegral(path(0), new long[] {1}, false));
    assertTrue(e.getMessage(), e.getMessage().contains("not integral"));
    IndexSegmentWriter ints = IndexSegmentWriter.builder(IndexType.BTREE, 1, Types.IntegerType.get()).build();
    e = assertThrows(IllegalArgumentException.class,
        () -> ints.addIntegral(path(0), new long[] {1L << 31}, false));
    assertTrue(e.getMessage(), e.getMessage().contains("out of the int range"));
  }

  @Test
  public void boxedKeyOfTheWrongClassIsStillRefusedAtWrite() {
    IndexSegmentWriter writer = IndexSegmentWriter.builder(IndexType.BTREE, 1, Types.IntegerType.get()).build();
    writer.add(FileValues.of(path(0), List.of(1, 2L)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> writer.write(
        IndexFixtures.IO.newOutputFile(IndexFixtures.location(temp.getRoot(), "bad.puffin"))));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Invalid value for an index key of type int: 2 "));
  }
}
