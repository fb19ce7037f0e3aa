package io.floe.spark.source;

import static org.junit.Assert.assertEquals;

import io.floe.spark.util.SparkSchemas;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
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
 * Readers outside the source package (the driver's statistics sketches) share the configured
 * copies of their base configuration through {@link FloeParquetReader.SharedConfigurations}: files
 * that look alike share one copy, a file of another schema gets its own, and every file still
 * reads its own rows.
 */
public class TestSharedConfigurations {
  private static final MessageType ONE = MessageTypeParser.parseMessageType(
      "message m { required int64 id = 1; optional binary name (STRING) = 2; }");
  private static final MessageType OTHER = MessageTypeParser.parseMessageType(
      "message m { required int64 id = 1; optional binary name (STRING) = 2; optional int32 extra = 3; }");
  @ClassRule
  public static final TemporaryFolder DIR = new TemporaryFolder();

  @Test
  public void filesThatLookAlikeShareOneConfiguration() throws IOException {
    String a = write("a.parquet", ONE, 0, 100);
    String b = write("b.parquet", ONE, 100, 250);
    String c = write("c.parquet", OTHER, 250, 260);
    Configuration base = new Configuration(false);
    FloeParquetReader.SharedConfigurations shared = new FloeParquetReader.SharedConfigurations();
    assertEquals(ids(0, 100), read(a, base, shared));
    assertEquals(ids(100, 250), read(b, base, shared));
    assertEquals("files of one schema share one copy", 1, shared.size());
    assertEquals(ids(250, 260), read(c, base, shared));
    assertEquals("a file of another schema gets its own", 2, shared.size());
    assertEquals(ids(0, 100), read(a, base, shared));
    assertEquals(2, shared.size());
  }

  private static List<Long> ids(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  private static String write(String name, MessageType schema, long from, long to) throws IOException {
    String path = new File(DIR.getRoot(), name).getAbsolutePath();
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new Path(path))
        .withType(schema).withConf(new Configuration(false)).build()) {
      for (long i = from; i < to; i++) {
        Group row = groups.newGroup().append("id", i).append("name", "n" + i);
        if (schema.containsField("extra")) {
          row.append("extra", (int) i);
        }
        writer.write(row);
      }
    }
    return path;
  }

  private static List<Long> read(String path, Configuration base, FloeParquetReader.SharedConfigurations shared)
      throws IOException {
    StructType schema = new StructType(new StructField[] {
        new StructField("id", DataTypes.LongType, false,
            new MetadataBuilder().putLong(SparkSchemas.FIELD_ID_KEY, 1).build())});
    List<Long> ids = new ArrayList<>();
    try (FloeParquetReader reader = FloeParquetReader.read(path).project(schema).conf(base)
        .sharedConfigurations(shared).build()) {
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
