package io.floe.format.manifest;

import io.floe.format.io.LocalFileIO;
import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.TimeTransforms;
import io.floe.format.partition.Transforms;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/** Shared schema, specs and files for the manifest tests. */
final class ManifestFixtures {
  private ManifestFixtures() {}

  static final LocalFileIO IO = new LocalFileIO();

  static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.IntegerType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "dt", Types.DateType.get()),
      Types.NestedField.optional(4, "amount", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(6, "u", Types.UUIDType.get()),
      Types.NestedField.optional(7, "payload", Types.BinaryType.get()),
      Types.NestedField.optional(8, "score", Types.DoubleType.get())));

  /** identity on int, string, date, decimal and timestamp: partition field ids 1000..1004. */
  static PartitionSpec identitySpec() {
    return PartitionSpec.builderFor(SCHEMA)
        .identity("id").identity("name").identity("dt").identity("amount").identity("ts")
        .withSpecId(0).build();
  }

  /** day(ts), bucket[16](id), identity(u), identity(payload), identity(score): spec 1. */
  static PartitionSpec transformSpec() {
    return PartitionSpec.builderFor(SCHEMA)
        .add("ts", TimeTransforms.day(), null)
        .add("id", Transforms.bucket(16), null)
        .identity("u").identity("payload").identity("score")
        .withSpecId(1).build();
  }

  static Metrics metrics(long rows) {
    return new Metrics(rows, Map.of(1, 100L, 2, 200L), Map.of(1, rows, 2, rows), Map.of(1, 0L, 2, 1L),
        Map.of(8, 0L),
        Map.of(1, Conversions.toByteBuffer(Types.IntegerType.get(), 1), 2, utf8("a")),
        Map.of(1, Conversions.toByteBuffer(Types.IntegerType.get(), 9), 2, utf8("z")));
  }

  static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  static DataFile dataFile(PartitionSpec spec, String name, long rows, Object... partition) {
    return DataFile.builder(spec)
        .withPath("file:/tmp/warehouse/db/t/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.of(partition))
        .withRecordCount(rows)
        .withFileSizeInBytes(rows * 10 + 7)
        .withMetrics(metrics(rows))
        .withSplitOffsets(List.of(4L, 1000L))
        .withSortOrderId(0)
        .build();
  }

  static OutputFile newFile(File dir, String name) {
    return IO.newOutputFile(new File(dir, name).toURI().toString());
  }

  static ManifestFile close(ManifestWriter writer) {
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toManifestFile();
  }
}
