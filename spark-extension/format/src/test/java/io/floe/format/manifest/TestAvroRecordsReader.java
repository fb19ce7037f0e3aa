package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.SCHEMA;
import static io.floe.format.manifest.ManifestFixtures.identitySpec;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.FastReaderBuilder;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Reading metadata files must not retain their schemas: Avro's {@code GenericDatumReader} keeps every
 * writer schema it reads with in a static cache (the fast reader's, or the per-thread resolver cache)
 * whose values reference their keys, and each file read brings a new schema object, so a driver that
 * read thousands of manifests ran out of heap.
 */
public class TestAvroRecordsReader {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void readingManifestsRepeatedlyRetainsNoSchemaInAvrosResolverCache() throws Exception {
    PartitionSpec spec = identitySpec();
    OutputFile out = ManifestFixtures.newFile(temp.getRoot(), "m.avro");
    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, out, 42L, ManifestContent.DATA);
    writer.add(ManifestFixtures.dataFile(spec, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 1L));
    ManifestFile manifest = ManifestFixtures.close(writer).withSequenceNumbers(1L, 1L);

    int before = retainedReaders();
    for (int i = 0; i < 300; i++) {
      List<ManifestEntry<?>> entries = ManifestReader.read(out.toInputFile(), manifest, Map.of(0, spec));
      assertEquals(1, entries.size());
      assertEquals("file:/tmp/warehouse/db/t/data/a.parquet", entries.get(0).file().path());
      assertEquals(Long.valueOf(42L), entries.get(0).snapshotId());
    }
    int after = retainedReaders();
    assertTrue("300 reads of one manifest left " + (after - before) + " schemas in Avro's reader caches",
        after - before <= 1);
  }

  @Test
  public void filesWithTheSameSchemaTextShareOneParsedSchema() {
    PartitionSpec spec = identitySpec();
    OutputFile first = ManifestFixtures.newFile(temp.getRoot(), "a.avro");
    OutputFile second = ManifestFixtures.newFile(temp.getRoot(), "b.avro");
    for (OutputFile out : List.of(first, second)) {
      ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, out, 42L, ManifestContent.DATA);
      writer.add(ManifestFixtures.dataFile(spec, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 1L));
      ManifestFixtures.close(writer);
    }
    assertSame(AvroRecords.read(first.toInputFile(), "manifest").schema(),
        AvroRecords.read(second.toInputFile(), "manifest").schema());
  }

  @Test
  public void everyCodecReadsTheSameRecordsWithFieldsInAnyOrder() throws Exception {
    Schema schema = SchemaBuilder.record("r").fields()
        .name("name").prop(AvroRecords.FIELD_ID, 2).type().stringType().noDefault()
        .name("id").prop(AvroRecords.FIELD_ID, 1).type().longType().noDefault()
        .endRecord();
    for (CodecFactory codec : List.of(CodecFactory.nullCodec(), CodecFactory.deflateCodec(6),
        CodecFactory.zstandardCodec(3))) {
      File file = new File(temp.getRoot(), codec + ".avro");
      try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
        writer.setCodec(codec);
        writer.setMeta("format-version", "2");
        writer.create(schema, file);
        for (long i = 0; i < 1000; i++) {
          writer.append(new GenericRecordBuilder(schema).set("id", i).set("name", "n" + i).build());
          if (i % 300 == 0) {
            writer.sync();
          }
        }
      }
      AvroRecords avro = AvroRecords.read(ManifestFixtures.IO.newInputFile("file:" + file.getAbsolutePath()), "manifest");
      assertEquals(codec.toString(), "2", avro.metadata("format-version"));
      assertEquals(codec.toString(), 1000, avro.records().size());
      GenericRecord last = avro.records().get(999);
      assertEquals(codec.toString(), 999L, avro.get(last, 1));
      assertEquals(codec.toString(), "n999", avro.get(last, 2).toString());
    }
  }

  /**
   * The writer schemas held by Avro's two reader caches: this thread's entry of
   * GenericDatumReader.RESOLVER_CACHE and the shared FastReaderBuilder's readerCache (the fast
   * reader, on by default since Avro 1.12).
   */
  private static int retainedReaders() throws ReflectiveOperationException {
    Field resolvers = GenericDatumReader.class.getDeclaredField("RESOLVER_CACHE");
    resolvers.setAccessible(true);
    ThreadLocal<?> perThread = (ThreadLocal<?>) resolvers.get(null);
    Field readers = FastReaderBuilder.class.getDeclaredField("readerCache");
    readers.setAccessible(true);
    Map<?, ?> fast = (Map<?, ?>) readers.get(GenericData.get().getFastReaderBuilder());
    return ((Map<?, ?>) perThread.get()).size() + fast.size();
  }
}
