import java.io.File;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Files;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Writes the Iceberg-runtime manifest fixtures of TestManifestFixtureFiles (iceberg-v{1,2,3}-*.avro)
 * with Apache Iceberg 1.11's own ManifestWriter. Run:
 *   javac -cp ICEBERG_RUNTIME_JAR -d OUT IcebergManifests.java && java -cp ICEBERG_RUNTIME_JAR:OUT IcebergManifests DIR
 */
public class IcebergManifests {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(6, "score", Types.DoubleType.get()),
      Types.NestedField.optional(7, "uid", Types.UUIDType.get()),
      Types.NestedField.optional(8, "bin", Types.BinaryType.get()),
      Types.NestedField.optional(9, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(10, "f", Types.FloatType.get()),
      Types.NestedField.optional(11, "d2", Types.DateType.get()),
      Types.NestedField.optional(12, "ts2", Types.TimestampType.withoutZone()));

  public static void main(String[] args) throws Exception {
    File dir = new File(args[0]);
    dir.mkdirs();
    PartitionSpec unpartitioned = PartitionSpec.unpartitioned();
    PartitionSpec transforms = PartitionSpec.builderFor(SCHEMA).withSpecId(1)
        .identity("name").bucket("id", 16).truncate("name", 3).day("day").year("d2")
        .hour("ts").month("ts2").truncate("amount", 10).identity("flag").bucket("uid", 4).identity("bin")
        .alwaysNull("score").build();
    SortOrder sort = SortOrder.builderFor(SCHEMA).withOrderId(1).asc("id").build();
    for (int v = 1; v <= 3; v++) {
      data(new File(dir, "iceberg-v" + v + "-data-unpartitioned.avro"), v, unpartitioned, sort);
      data(new File(dir, "iceberg-v" + v + "-data-transforms.avro"), v, transforms, sort);
      if (v >= 2) {
        deletes(new File(dir, "iceberg-v" + v + "-deletes-transforms.avro"), v, transforms);
      }
    }
  }

  static Metrics metrics(boolean full) {
    if (!full) {
      return new Metrics(3L, null, null, null, null);
    }
    return new Metrics(3L, Map.of(1, 10L, 2, 20L), Map.of(1, 3L, 2, 3L, 6, 3L), Map.of(1, 0L, 2, 1L, 6, 0L),
        Map.of(6, 1L, 10, 0L),
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 1L), 2, Conversions.toByteBuffer(Types.StringType.get(), "a"),
            6, Conversions.toByteBuffer(Types.DoubleType.get(), -1.5d)),
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 9L), 2, Conversions.toByteBuffer(Types.StringType.get(), "zz\u00e9"),
            6, Conversions.toByteBuffer(Types.DoubleType.get(), 2.5d)));
  }

  static String path(PartitionSpec spec, String a) {
    return spec.isUnpartitioned() ? null
        : "name=" + a + "/id_bucket=3/name_trunc=" + a + "/day_day=2024-01-02/d2_year=54"
            + "/ts_hour=473381/ts2_month=650/amount_trunc=12.30/flag=true/uid_bucket=1/bin=AQI%3D/score_null=__HIVE_DEFAULT_PARTITION__";
  }

  static void data(File out, int v, PartitionSpec spec, SortOrder sort) throws Exception {
    out.delete();
    ManifestWriter<DataFile> w = ManifestFiles.write(v, spec, Files.localOutput(out), 100L);
    try (w) {
      DataFiles.Builder full = DataFiles.builder(spec).withPath("s3://b/t/data/full.parquet").withFormat(FileFormat.PARQUET)
          .withRecordCount(3).withFileSizeInBytes(1234).withMetrics(metrics(true))
          .withSplitOffsets(List.of(4L, 600L)).withEncryptionKeyMetadata(ByteBuffer.wrap(new byte[] {9, 8, 7}))
          .withSortOrder(sort);
      DataFiles.Builder bare = DataFiles.builder(spec).withPath("s3://b/t/data/bare.orc").withFormat(FileFormat.ORC)
          .withRecordCount(5).withFileSizeInBytes(99).withMetrics(metrics(false));
      if (!spec.isUnpartitioned()) {
        full.withPartitionPath(path(spec, "abc"));
        bare.withPartitionPath(path(spec, "x%20y"));
      }
      if (v >= 3) {
        full.withFirstRowId(2000L);
      }
      DataFile fullFile = full.build();
      DataFile bareFile = bare.build();
      w.add(fullFile);
      w.add(bareFile);
      w.existing(DataFiles.builder(spec).copy(fullFile).withPath("s3://b/t/data/existing.avro")
          .withFormat(FileFormat.AVRO).build(), 90L, 2L, 2L);
      w.delete(DataFiles.builder(spec).copy(bareFile).withPath("s3://b/t/data/gone.parquet").build(), 1L, 1L);
    }
  }

  static void deletes(File out, int v, PartitionSpec spec) throws Exception {
    out.delete();
    ManifestWriter<DeleteFile> w = ManifestFiles.writeDeleteManifest(v, spec, Files.localOutput(out), 100L);
    try (w) {
      w.add(FileMetadata.deleteFileBuilder(spec).ofEqualityDeletes(1, 2).withPath("s3://b/t/data/eq.parquet")
          .withFormat(FileFormat.PARQUET).withPartitionPath(path(spec, "abc")).withRecordCount(2).withFileSizeInBytes(77)
          .withMetrics(metrics(true)).withEncryptionKeyMetadata(ByteBuffer.wrap(new byte[] {1}))
          .withSplitOffsets(List.of(4L)).build());
      if (v == 2) {
        w.add(FileMetadata.deleteFileBuilder(spec).ofPositionDeletes().withPath("s3://b/t/data/pos.parquet")
            .withFormat(FileFormat.PARQUET).withPartitionPath(path(spec, "abc")).withRecordCount(4).withFileSizeInBytes(88)
            .withMetrics(metrics(false)).withReferencedDataFile("s3://b/t/data/full.parquet").build());
      } else {
        w.add(FileMetadata.deleteFileBuilder(spec).ofPositionDeletes().withPath("s3://b/t/data/dv.puffin")
            .withFormat(FileFormat.PUFFIN).withPartitionPath(path(spec, "abc")).withRecordCount(4).withFileSizeInBytes(300)
            .withReferencedDataFile("s3://b/t/data/full.parquet").withContentOffset(4L).withContentSizeInBytes(60L).build());
      }
      w.existing(FileMetadata.deleteFileBuilder(spec).ofEqualityDeletes(1).withPath("s3://b/t/data/eq-old.parquet")
          .withFormat(FileFormat.PARQUET).withPartitionPath(path(spec, "q")).withRecordCount(1).withFileSizeInBytes(50)
          .build(), 90L, 2L, 2L);
    }
  }
}
