package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.micros;

import io.floe.format.commit.ManageSnapshots;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotLogEntry;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code history}: the main branch's {@code snapshot-log}, oldest first: when each snapshot became
 * current, its parent, and whether it is an ancestor of the current snapshot (false after a rollback
 * for the snapshots rolled back). Snapshots of other branches are not in this log.
 */
final class HistoryTable extends MetadataTable {
  private static final StructType SCHEMA = new StructType()
      .add("made_current_at", DataTypes.TimestampType, false)
      .add("snapshot_id", DataTypes.LongType, false)
      .add("parent_id", DataTypes.LongType, true)
      .add("is_current_ancestor", DataTypes.BooleanType, false);

  HistoryTable(MetadataTableSource source) {
    super(source, "history", SCHEMA);
  }

  @Override
  List<InternalRow> rows() {
    TableMetadata metadata = source().metadata();
    Snapshot current = metadata.currentSnapshot();
    Set<Long> ancestors = current == null ? Set.of() : ManageSnapshots.ancestors(metadata, current.snapshotId())
        .stream().map(Snapshot::snapshotId).collect(Collectors.toSet());
    List<InternalRow> rows = new ArrayList<>();
    for (SnapshotLogEntry entry : metadata.snapshotLog()) {
      Snapshot snap = metadata.snapshot(entry.snapshotId());
      rows.add(new GenericInternalRow(new Object[] {micros(entry.timestampMillis()), entry.snapshotId(),
          snap == null ? null : snap.parentId(), ancestors.contains(entry.snapshotId())}));
    }
    return rows;
  }
}
