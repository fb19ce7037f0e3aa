package io.floe.spark.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.floe.spark.util.SparkSchemas;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A reader told the file's length (a data file's manifest entry) opens it without asking the file
 * system for its status (a HEAD request per file on an object store); a wrong length falls back to
 * the file system's status and reads the same rows; a missing file is still reported as missing.
 */
public class TestKnownFileLength {
  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
      "message m { required int64 id = 1; optional binary name (STRING) = 2; }");
  @ClassRule
  public static final TemporaryFolder DIR = new TemporaryFolder();

  /** The local file system under the scheme {@code counting:}, counting the status calls. */
  public static final class CountingFileSystem extends RawLocalFileSystem {
    static final AtomicInteger STATUS_CALLS = new AtomicInteger();

    @Override
    public URI getUri() {
      return URI.create("counting:///");
    }

    @Override
    public FileStatus getFileStatus(Path p) throws IOException {
      STATUS_CALLS.incrementAndGet();
      return super.getFileStatus(p);
    }
  }

  @Test
  public void aKnownLengthOpensTheFileWithoutItsStatus() throws IOException {
    String path = write("a.parquet", 0, 300);
    long length = new File(path).length();
    String counted = "counting://" + path;
    // the local file system checks the status when a file is opened (S3A, given the status, does
    // not): the reader's own call is the difference
    int withLength = statusCallsOf(counted, length);
    int without = statusCallsOf(counted, -1);
    assertEquals("the reader's own status call", without - 1, withLength);
    assertEquals(ids(0, 300), read(counted, length));
  }

  @Test
  public void aWrongLengthFallsBackToTheFileSystemsStatus() throws IOException {
    String path = write("b.parquet", 300, 400);
    long length = new File(path).length();
    for (long wrong : new long[] {length - 9, length + 100, 0, 7}) {
      assertEquals("length " + wrong, ids(300, 400), read(path, wrong));
    }
    assertEquals(ids(300, 400), read(path, length));
  }

  @Test
  public void aMissingFileIsReportedAsMissing() {
    String path = new File(DIR.getRoot(), "gone.parquet").getAbsolutePath();
    assertThrows(FileNotFoundException.class, () -> read(path, 1234));
  }

  private static int statusCallsOf(String path, long length) throws IOException {
    CountingFileSystem.STATUS_CALLS.set(0);
    read(path, length);
    return CountingFileSystem.STATUS_CALLS.get();
  }

  private static List<Long> ids(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  private static String write(String name, long from, long to) throws IOException {
    String path = new File(DIR.getRoot(), name).getAbsolutePath();
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new Path(path))
        .withType(SCHEMA).withConf(new Configuration(false)).build()) {
      for (long i = from; i < to; i++) {
        writer.write(groups.newGroup().append("id", i).append("name", "n" + i));
      }
    }
    return path;
  }

  private static List<Long> read(String path, long length) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.counting.impl", CountingFileSystem.class.getName());
    conf.setBoolean("fs.counting.impl.disable.cache", true);
    StructType schema = new StructType(new StructField[] {
        new StructField("id", DataTypes.LongType, false,
            new MetadataBuilder().putLong(SparkSchemas.FIELD_ID_KEY, 1).build())});
    List<Long> ids = new ArrayList<>();
    FloeParquetReader.Builder builder = FloeParquetReader.read(path).project(schema).conf(conf);
    if (length >= 0) {
      builder.fileLength(length);
    }
    try (FloeParquetReader reader = builder.build()) {
      while (reader.next()) {
        ColumnarBatch batch = reader.get();
        for (int r = 0; r < batch.numRows(); r++) {
          ids.add(batch.column(0).getLong(r));
        }
      }
    }
    return ids;
  }
}
