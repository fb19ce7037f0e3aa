package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.micros;
import static io.floe.spark.metadata.CatalystValues.str;
import static io.floe.spark.metadata.CatalystValues.stringMap;

import io.floe.format.metadata.Snapshot;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code snapshots}: every snapshot in the metadata, of every branch and tag, in metadata order:
 * commit time, id, parent id, operation, manifest list and summary (without {@code operation}).
 */
final class SnapshotsTable extends MetadataTable {
  private static final StructType SCHEMA = new StructType()
      .add("committed_at", DataTypes.TimestampType, false)
      .add("snapshot_id", DataTypes.LongType, false)
      .add("parent_id", DataTypes.LongType, true)
      .add("operation", DataTypes.StringType, true)
      .add("manifest_list", DataTypes.StringType, true)
      .add("summary", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, false), true);

  SnapshotsTable(MetadataTableSource source) {
    super(source, "snapshots", SCHEMA);
  }

  @Override
  List<InternalRow> rows() {
    List<InternalRow> rows = new ArrayList<>();
    for (Snapshot s : source().metadata().snapshots()) {
      rows.add(new GenericInternalRow(new Object[] {micros(s.timestampMillis()), s.snapshotId(), s.parentId(),
          str(s.operation()), str(s.manifestListLocation()), stringMap(s.summary())}));
    }
    return rows;
  }
}
