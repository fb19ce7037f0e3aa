package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.micros;
import static io.floe.spark.metadata.CatalystValues.str;

import io.floe.format.metadata.MetadataLogEntry;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotLogEntry;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code metadata_log_entries}: the previous metadata files of the {@code metadata-log} and then the
 * current one, each with its timestamp and the main branch's snapshot at that time (from the
 * {@code snapshot-log}): its id, schema id and sequence number; null before the first snapshot.
 */
final class MetadataLogEntriesTable extends MetadataTable {
  private static final StructType SCHEMA = new StructType()
      .add("timestamp", DataTypes.TimestampType, false)
      .add("file", DataTypes.StringType, false)
      .add("latest_snapshot_id", DataTypes.LongType, true)
      .add("latest_schema_id", DataTypes.IntegerType, true)
      .add("latest_sequence_number", DataTypes.LongType, true);

  MetadataLogEntriesTable(MetadataTableSource source) {
    super(source, "metadata_log_entries", SCHEMA);
  }

  @Override
  List<InternalRow> rows() {
    TableMetadata metadata = source().metadata();
    List<MetadataLogEntry> entries = new ArrayList<>(metadata.previousFiles());
    if (metadata.metadataFileLocation() != null) {
      entries.add(new MetadataLogEntry(metadata.lastUpdatedMillis(), metadata.metadataFileLocation()));
    }
    List<InternalRow> rows = new ArrayList<>();
    for (MetadataLogEntry entry : entries) {
      Long snapshotId = currentAt(metadata, entry.timestampMillis());
      Snapshot snap = snapshotId == null ? null : metadata.snapshot(snapshotId);
      rows.add(new GenericInternalRow(new Object[] {micros(entry.timestampMillis()), str(entry.file()),
          snapshotId, snap == null ? null : snap.schemaId(), snap == null ? null : snap.sequenceNumber()}));
    }
    return rows;
  }

  /** The snapshot that was current on main at {@code millis}, by the snapshot log; null if none was. */
  static Long currentAt(TableMetadata metadata, long millis) {
    Long found = null;
    for (SnapshotLogEntry e : metadata.snapshotLog()) {
      if (e.timestampMillis() <= millis) {
        found = e.snapshotId();
      }
    }
    return found;
  }
}
