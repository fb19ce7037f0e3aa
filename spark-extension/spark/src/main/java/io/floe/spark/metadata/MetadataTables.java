package io.floe.spark.metadata;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.SnapshotErrors;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.PastSnapshots;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.table.TableView;
import io.floe.spark.source.FloeChangesTable;
import io.floe.spark.util.SparkExceptions;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.catalog.Table;

/**
 * The metadata tables of a Floe table, by their Iceberg names ({@code db.t.snapshots}, ...), at the
 * current snapshot or, for the file-level tables, at a past one ({@code VERSION AS OF},
 * {@code TIMESTAMP AS OF}).
 */
public final class MetadataTables {
  /** The names a metadata table can have, as in Iceberg. */
  public static final List<String> NAMES = List.of("snapshots", "history", "files", "data_files", "delete_files",
      "manifests", "partitions", "entries", "refs", "metadata_log_entries", "all_data_files", "all_manifests",
      "indexes", FloeChangesTable.NAME);

  private MetadataTables() {}

  /** True when {@code name} (any case) names a metadata table. */
  public static boolean isMetadataTableName(String name) {
    return NAMES.contains(name.toLowerCase(Locale.ROOT));
  }

  /**
   * The metadata table {@code type} of the table {@code ops} reads, named {@code tableName.type}.
   * {@code version} (a snapshot id, branch or tag) or {@code timestampMillis} pick the snapshot the
   * file-level tables describe; both null for the current snapshot.
   */
  public static Table load(String tableName, FileSystemTableOperations ops, String type, String version,
      Long timestampMillis) {
    String lower = type.toLowerCase(Locale.ROOT);
    TableMetadata metadata = ops.current();
    if (!NAMES.contains(lower)) {
      throw SparkExceptions.thrown(unknownName(tableName, metadata, type));
    }
    if (lower.equals(FloeChangesTable.NAME)) {
      if (version != null || timestampMillis != null) {
        throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot read " + tableName + "." + type
            + " at a version or time: choose the range of the change feed with the read options start-snapshot-id, "
            + "end-snapshot-id, start-timestamp and end-timestamp");
      }
      return new FloeChangesTable(TableView.current(tableName, ops));
    }
    Snapshot snapshot = version != null ? atVersion(tableName, metadata, version)
        : timestampMillis != null ? asOf(tableName, ops, metadata, timestampMillis) : metadata.currentSnapshot();
    MetadataTableSource source = new MetadataTableSource(tableName, ops.io(), metadata, snapshot);
    switch (lower) {
      case "snapshots":
        return new SnapshotsTable(source);
      case "history":
        return new HistoryTable(source);
      case "files":
        return new FilesTable(source, lower, FilesTable.Kind.ALL, false);
      case "data_files":
        return new FilesTable(source, lower, FilesTable.Kind.DATA, false);
      case "delete_files":
        return new FilesTable(source, lower, FilesTable.Kind.DELETES, false);
      case "all_data_files":
        return new FilesTable(source, lower, FilesTable.Kind.DATA, true);
      case "manifests":
        return new ManifestsTable(source, false);
      case "all_manifests":
        return new ManifestsTable(source, true);
      case "partitions":
        return new PartitionsTable(source);
      case "entries":
        return new EntriesTable(source);
      case "refs":
        return new RefsTable(source);
      case "indexes":
        return new IndexesTable(source);
      default:
        return new MetadataLogEntriesTable(source);
    }
  }

  /**
   * Why {@code tableName.name} is not a metadata table. Names {@code branch_<name>} and
   * {@code tag_<name>} of an existing ref resolve before this (FloeCatalog); here the ref is missing.
   */
  private static FloeException unknownName(String tableName, TableMetadata metadata, String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (String kind : List.of("branch", "tag")) {
      if (lower.startsWith(kind + "_") && name.length() > kind.length() + 1) {
        String ref = name.substring(kind.length() + 1);
        SnapshotRef found = metadata.ref(ref);
        boolean matches = found != null && (kind.equals("branch") ? found.isBranch() : !found.isBranch());
        String problem = matches
            ? kind + " '" + ref + "' has no snapshot in the metadata"
            : "table " + tableName + " has no " + kind + " named '" + ref + "' (its branches and tags: "
                + metadata.refs().keySet().stream().sorted().collect(Collectors.joining(", ")) + "); create it with "
                + "ALTER TABLE " + tableName + " CREATE " + kind.toUpperCase(Locale.ROOT) + " " + ref;
        return new FloeException(ErrorClass.FLOE_METADATA_TABLE_NOT_FOUND, "Cannot resolve " + tableName + "." + name
            + ": " + problem, FloeException.params("table", tableName + "." + name), null);
      }
    }
    return new FloeException(ErrorClass.FLOE_METADATA_TABLE_NOT_FOUND, "Unknown metadata table " + tableName + "."
        + name + ": the metadata tables are " + String.join(", ", NAMES),
        FloeException.params("table", tableName + "." + name), null);
  }

  private static Snapshot atVersion(String tableName, TableMetadata metadata, String version) {
    Snapshot snap = null;
    if (version.matches("-?\\d+")) {
      snap = metadata.snapshot(Long.parseLong(version));
    }
    SnapshotRef ref = metadata.ref(version);
    if (snap == null && ref != null) {
      snap = metadata.snapshot(ref.snapshotId());
    }
    if (snap == null) {
      throw SparkExceptions.thrown(SnapshotErrors.snapshotNotFound(tableName, version, "Cannot read metadata tables of "
          + tableName + " at version " + version + ": no snapshot, branch or tag has that id or name; snapshots: "
          + snapshotIds(metadata) + "; refs: " + metadata.refs().keySet()));
    }
    return snap;
  }

  private static Snapshot asOf(String tableName, FileSystemTableOperations ops, TableMetadata metadata,
      long timestampMillis) {
    try {
      return PastSnapshots.snapshotAt(metadata, timestampMillis, file -> TableMetadataParser.read(ops.io(), file),
          "Cannot read metadata tables of " + tableName + " as of " + Instant.ofEpochMilli(timestampMillis));
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e);
    }
  }


  private static String snapshotIds(TableMetadata metadata) {
    return metadata.snapshots().stream().map(s -> Long.toString(s.snapshotId()))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
