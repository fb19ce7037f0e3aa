package io.floe.format.stream;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A partitioned table in a temporary warehouse and file entries for it (no data is written). */
final class StreamFixtures {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()));
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("region").build();

  private StreamFixtures() {}

  static FileSystemTableOperations create(Path dir, int formatVersion) {
    return create(dir, formatVersion, Map.of());
  }

  static FileSystemTableOperations create(Path dir, int formatVersion, Map<String, String> properties) {
    FileSystemCatalog catalog = new FileSystemCatalog(new LocalFileIO(), "file://" + dir.toAbsolutePath());
    catalog.createNamespace(List.of("db"), Map.of());
    TableIdentifier ident = TableIdentifier.of(List.of("db"), "t");
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, SPEC, SortOrder.unsorted(),
        catalog.tableLocation(ident), properties, formatVersion);
    return catalog.createTable(ident, metadata);
  }

  static DataFile dataFile(TableMetadata metadata, String region, long records) {
    return DataFile.builder(metadata.spec())
        .withPath(metadata.location() + "/data/region=" + region + "/" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.of(region)).withRecordCount(records)
        .withFileSizeInBytes(100 * records).withMetrics(Metrics.empty(records)).build();
  }

  static DeleteFile positionDeletes(DataFile data, long count) {
    return DeleteFile.builder(SPEC).withContent(FileContent.POSITION_DELETES)
        .withPath(data.path().replace(".parquet", "-deletes-" + UUID.randomUUID() + ".parquet"))
        .withFormat(FileFormat.PARQUET).withPartition(data.partition()).withRecordCount(count)
        .withFileSizeInBytes(40 + count).withMetrics(Metrics.empty(count)).withReferencedDataFile(data.path()).build();
  }

  static DeleteFile equalityDeletes(TableMetadata metadata, String region, long count) {
    return DeleteFile.builder(SPEC).withContent(FileContent.EQUALITY_DELETES)
        .withPath(metadata.location() + "/data/region=" + region + "/eq-" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.of(region)).withRecordCount(count)
        .withFileSizeInBytes(40 + count).withMetrics(Metrics.empty(count)).withEqualityFieldIds(List.of(1)).build();
  }

  /** Appends {@code files} in one commit and returns the new snapshot id. */
  static long append(FileSystemTableOperations ops, DataFile... files) {
    AppendFiles append = new AppendFiles(ops);
    for (DataFile f : files) {
      append.appendFile(f);
    }
    return append.commit().snapshotId();
  }
}
