package io.floe.spark.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.spark.util.SparkSchemas;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Page and row-group skipping where row positions count (position deletes, deletion vectors,
 * {@code _pos}): the rows Parquet skips leave gaps in the positions of a batch, and each row
 * keeps its own position. The file (several row groups of 500-row pages, sorted by id, id = the
 * row's position) lets the filters skip most pages.
 */
public class TestSkippingWithPositions {
  private static final int ROWS = 60_000;
  private static final MessageType FILE_SCHEMA = MessageTypeParser.parseMessageType(
      "message m { required int64 id = 1; optional binary name (STRING) = 2; }");
  private static File dir;
  private static String path;

  @BeforeClass
  public static void writeFile() throws IOException {
    dir = java.nio.file.Files.createTempDirectory("floe-skipping").toFile();
    path = new File(dir, "data.parquet").getAbsolutePath();
    SimpleGroupFactory groups = new SimpleGroupFactory(FILE_SCHEMA);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new Path(path))
        .withType(FILE_SCHEMA)
        .withConf(new Configuration(false))
        .withRowGroupSize(256L * 1024)
        .withPageRowCountLimit(500)
        .build()) {
      for (int i = 0; i < ROWS; i++) {
        writer.write(groups.newGroup().append("id", (long) i).append("name", "n" + i));
      }
    }
    try (ParquetFileReader file = ParquetFileReader.open(
        HadoopInputFile.fromPath(new Path(path), new Configuration(false)))) {
      assertTrue("several row groups", file.getRowGroups().size() >= 3);
    }
  }

  @AfterClass
  public static void removeFile() {
    for (File f : dir.listFiles()) {
      f.delete();
    }
    dir.delete();
  }

  @Test
  public void aRangeSkipsPagesAndDeletesStillFindTheirRows() throws IOException {
    RoaringPositionBitmap deleted = bitmap(30_150, 30_151, 30_600, 30_999, 59_000, 10);
    Filter range = new And(new GreaterThanOrEqual("id", 30_100L), new LessThan("id", 30_900L));
    List<Long> ids = ids(read(deleted, null, range));
    for (long i = 30_100; i < 30_900; i++) {
      assertEquals("row " + i, !deleted.contains(i), ids.contains(i));
    }
    for (long id : ids) {
      assertTrue("deleted row " + id + " was returned", !deleted.contains(id));
    }
    assertTrue("pages were skipped: " + lastDecoded + " rows decoded", lastDecoded <= 2_000);
  }

  @Test
  public void rowsOfPagesFarApartShareABatchAndKeepTheirPositions() throws IOException {
    // three pages far apart: one batch holds rows of all three, with gaps in its positions
    Filter in = new In("id", new Object[] {5L, 6L, 20_000L, 20_001L, 45_000L, 45_003L});
    List<long[]> rows = read(bitmap(6, 20_001), position -> position == 45_003, in);
    assertEquals(List.of(5L, 20_000L, 45_000L), ids(rows));
    assertTrue("only the three pages are decoded: " + lastDecoded, lastDecoded <= 1_500);
  }

  @Test
  public void withoutDeletesPositionsFollowTheSkippedPagesToo() throws IOException {
    List<long[]> rows = read(null, null, new In("id", new Object[] {700L, 50_000L}));
    assertEquals(List.of(700L, 50_000L), ids(rows));
    assertTrue("only two pages are decoded: " + lastDecoded, lastDecoded <= 1_000);
  }

  private static long lastDecoded;

  private static RoaringPositionBitmap bitmap(long... positions) {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    for (long p : positions) {
      bitmap.add(p);
    }
    return bitmap;
  }

  /** The ids of {@code rows}, each checked to be at the position it was read with. */
  private static List<Long> ids(List<long[]> rows) {
    List<Long> out = new ArrayList<>();
    for (long[] row : rows) {
      assertEquals("the _pos of id " + row[0], row[0], row[1]);
      out.add(row[0]);
    }
    return out;
  }

  /** Rows as {id, _pos}, checking that name matches id. */
  private static List<long[]> read(RoaringPositionBitmap deleted, LongPredicate isDeleted, Filter filter)
      throws IOException {
    StructType schema = new StructType(new StructField[] {
        new StructField("id", DataTypes.LongType, false, id(1)),
        new StructField("name", DataTypes.StringType, true, id(2)),
        new StructField(FloeParquetReader.POS_COLUMN, DataTypes.LongType, false,
            new MetadataBuilder().putBoolean(FloeParquetReader.METADATA_COLUMN_KEY, true).build())});
    FloeParquetReader.Builder builder = FloeParquetReader.read(path).project(schema).conf(new Configuration(false))
        .skipFilters(new Filter[] {filter});
    if (deleted != null) {
      builder.deletedPositions(deleted);
    }
    if (isDeleted != null) {
      builder.filterDeleted(isDeleted);
    }
    List<long[]> rows = new ArrayList<>();
    try (FloeParquetReader reader = builder.build()) {
      while (reader.next()) {
        ColumnarBatch batch = reader.get();
        for (int r = 0; r < batch.numRows(); r++) {
          long id = batch.column(0).getLong(r);
          assertEquals("n" + id, batch.column(1).getUTF8String(r).toString());
          rows.add(new long[] {id, batch.column(2).getLong(r)});
        }
      }
      lastDecoded = reader.rowsDecoded();
    }
    return rows;
  }

  private static org.apache.spark.sql.types.Metadata id(long fieldId) {
    return new MetadataBuilder().putLong(SparkSchemas.FIELD_ID_KEY, fieldId).build();
  }
}
