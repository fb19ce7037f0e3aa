package io.floe.testing;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Creates the commit storm's table on the local file system through the format API (no Spark):
 * {@code java io.floe.testing.CommitStormTable WAREHOUSE NAMESPACE TABLE [key=value...]}, the pairs
 * being table properties (the commit.retry.* settings of the storm).
 */
public final class CommitStormTable {
  private CommitStormTable() {}

  public static void main(String[] args) {
    FileSystemCatalog catalog = new FileSystemCatalog(new LocalFileIO(), args[0]);
    List<String> namespace = List.of(args[1]);
    if (!catalog.namespaceExists(namespace)) {
      catalog.createNamespace(namespace, Map.of());
    }
    Map<String, String> properties = new LinkedHashMap<>();
    for (String setting : List.of(args).subList(3, args.length)) {
      int eq = setting.indexOf('=');
      properties.put(setting.substring(0, eq), setting.substring(eq + 1));
    }
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    TableIdentifier ident = TableIdentifier.of(namespace, args[2]);
    TableMetadata metadata = TableMetadata.newTableMetadata(schema, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), catalog.tableLocation(ident), properties, 2);
    catalog.createTable(ident, metadata);
    System.out.println("CREATED " + catalog.tableLocation(ident));
  }
}
