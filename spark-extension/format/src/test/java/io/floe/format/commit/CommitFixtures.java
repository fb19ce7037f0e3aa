package io.floe.format.commit;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.io.FileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
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

/** Small tables in a temporary warehouse, for commit and catalog tests. */
final class CommitFixtures {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()));

  private CommitFixtures() {}

  static FileSystemCatalog catalog(Path dir) {
    return catalog(new LocalFileIO(), dir);
  }

  static FileSystemCatalog catalog(FileIO io, Path dir) {
    return new FileSystemCatalog(io, "file://" + dir.toAbsolutePath());
  }

  static FileSystemTableOperations create(FileSystemCatalog catalog, String name, Map<String, String> props) {
    return create(catalog, name, props, 2);
  }

  static FileSystemTableOperations create(FileSystemCatalog catalog, String name, Map<String, String> props,
      int formatVersion) {
    if (!catalog.namespaceExists(List.of("db"))) {
      catalog.createNamespace(List.of("db"), Map.of());
    }
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("region").build();
    TableIdentifier ident = TableIdentifier.of(List.of("db"), name);
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, spec, SortOrder.unsorted(),
        catalog.tableLocation(ident), props, formatVersion);
    return catalog.createTable(ident, metadata);
  }

  static DataFile dataFile(TableMetadata metadata, String region, long records) {
    return DataFile.builder(metadata.spec())
        .withPath(metadata.location() + "/data/region=" + region + "/" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.of(region))
        .withRecordCount(records)
        .withFileSizeInBytes(100 * records)
        .withMetrics(Metrics.empty(records))
        .build();
  }
}
